import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import {
  type DripRow,
  type DripStats,
  dripStats,
  type StepRow,
  stepStats,
  stepsOf,
} from '../../db/queries/drips.ts';
import { getGroup } from '../../db/queries/groups.ts';
import { findList, type ListRow } from '../../db/queries/lists.ts';
import type { Drip as DripSchema } from '../../schemas/drips.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';
import { type List, presentLists } from '../lists/present-list.ts';
import { presentGroups } from '../numbers/present.ts';

const NO_STATS: DripStats = { entered: 0, active: 0, errored: 0, noAction: 0, optOut: 0, engaged: 0 };

type GroupView = Awaited<ReturnType<typeof presentGroups>>[number];

/** The Drip campaign shape of the API (plus `workflowId` once migrated); unset fields left out, never null. */
export function presentDrip(
  d: DripRow,
  steps: StepRow[],
  related: {
    list: List | null;
    group: GroupView | null;
    stats?: DripStats;
    stepStats: Map<string, DripStats>;
  },
) {
  return omitNullsAs<Static<typeof DripSchema>>({
    id: d.id,
    name: d.name,
    description: d.description,
    trigger: omitNulls({
      type: d.trigger_type,
      delay: d.trigger_delay,
      message: d.keyword,
      list: related.list,
      group: related.group,
      groups: related.group ? [related.group] : [],
    }),
    messages: steps.map((s) => ({
      id: s.id,
      message: s.message,
      delay: s.delay,
      media: s.media,
      stats: related.stepStats.get(s.id) ?? NO_STATS,
    })),
    stats: related.stats ?? NO_STATS,
    active: d.active,
    maxDuration: d.max_duration,
    workflowId: d.workflow_id,
    created: stamp(d.created_at, d.created_by),
    updated: stamp(d.updated_at, d.updated_by),
  });
}

/** A drip campaign as the API shows it. */
export type Drip = ReturnType<typeof presentDrip>;

/** Drips in the API shape, each with its steps, list, group and stats (a deleted list or group is left out). */
export async function presentDrips(db: Queryable, accountId: string, rows: DripRow[]): Promise<Drip[]> {
  const ids = rows.map((r) => r.id);
  const listIds = [...new Set(rows.map((r) => r.list_id).filter((id): id is string => id !== null))];
  const groupIds = [...new Set(rows.map((r) => r.group_id).filter((id): id is string => id !== null))];
  const [steps, stats, perStep, listRows, groupRows] = await Promise.all([
    stepsOf(db, accountId, ids),
    dripStats(db, accountId, ids),
    stepStats(db, accountId, ids),
    Promise.all(listIds.map((id) => findList(db, accountId, id))),
    Promise.all(groupIds.map((id) => getGroup(db, accountId, id))),
  ]);
  const lists = new Map(
    (
      await presentLists(
        db,
        accountId,
        listRows.filter((l): l is ListRow => l !== undefined),
      )
    ).map((l) => [l.id, l]),
  );
  const groups = new Map(
    (
      await presentGroups(
        db,
        accountId,
        groupRows.filter((g) => g !== undefined),
      )
    ).map((g) => [g.id, g]),
  );
  return rows.map((r) =>
    presentDrip(
      r,
      steps.filter((s) => s.drip_id === r.id),
      {
        list: (r.list_id && lists.get(r.list_id)) || null,
        group: (r.group_id && groups.get(r.group_id)) || null,
        stats: stats.get(r.id),
        stepStats: perStep,
      },
    ),
  );
}
