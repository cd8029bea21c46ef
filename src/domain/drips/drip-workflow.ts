import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../../db/client.ts';
import { type DripRow, findDrip, type StepRow, stepsOf } from '../../db/queries/drips.ts';
import {
  findDripWorkflow,
  insertVersion,
  insertWorkflow,
  type StoredDefinition,
  setActiveVersion,
  setDripVersion,
  setDripWorkflow,
  versionsOf,
} from '../../db/queries/workflows.ts';
import { moveLiveRuns } from '../../db/queries/workflows-runs.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import type { DefinitionInput, EdgeInput, NodeInput } from '../workflows/definition.ts';

const isZero = (d: { days: number; hours: number; minutes: number }) => d.days + d.hours + d.minutes === 0;

/**
 * The workflow definition of a drip: its trigger node (with `maxDuration` when the drip has one),
 * a wait for the trigger delay (when it has one), then for each message a wait (when it has a
 * delay) and a send-message from the drip's group (with its media), then an end node; each node
 * leads to the next by one edge. Node ids are positional and readable (`trigger`, `wait-0`,
 * `wait-1`, `send-1`, …, `end`): a running contact at `send-2` goes on with the second message of
 * whatever the drip says now. Migration 0270 builds the same definition in SQL.
 */
export function dripDefinition(drip: DripRow, steps: StepRow[]): DefinitionInput {
  const nodes: NodeInput[] = [];
  const limit = drip.max_duration ? { maxDuration: drip.max_duration } : {};
  if (drip.trigger_type === 'list') {
    nodes.push({
      id: 'trigger',
      type: { id: 'trigger.list-joined' },
      config: { listId: drip.list_id, ...limit },
    });
  } else if (drip.trigger_type === 'keyword') {
    nodes.push({
      id: 'trigger',
      type: { id: 'trigger.keyword' },
      config: { keyword: drip.keyword, ...limit },
    });
  } else {
    nodes.push({ id: 'trigger', type: { id: 'trigger.contact-created' }, config: { ...limit } });
  }
  if (!isZero(drip.trigger_delay))
    nodes.push({ id: 'wait-0', type: { id: 'action.wait' }, config: { delay: drip.trigger_delay } });
  steps.forEach((s, i) => {
    if (!isZero(s.delay))
      nodes.push({ id: `wait-${i + 1}`, type: { id: 'action.wait' }, config: { delay: s.delay } });
    const config: Record<string, unknown> = { message: s.message };
    if (drip.group_id) config.id = drip.group_id;
    if (s.media.length > 0) config.media = s.media;
    nodes.push({ id: `send-${i + 1}`, type: { id: 'action.send-message' }, config });
  });
  nodes.push({ id: 'end', type: { id: 'action.end' }, config: {} });
  const edges: EdgeInput[] = nodes.slice(1).map((n, i) => ({
    id: `edge-${i + 1}`,
    source: nodes[i].id,
    target: n.id,
    value: '',
  }));
  return { nodes, edges };
}

/** The stored form of a drip's definition (valid by construction: the drip's own checks hold). */
function storedDefinition(def: DefinitionInput): StoredDefinition {
  return {
    nodes: def.nodes.map((n) => ({
      id: n.id,
      typeId: (n.type as { id: string }).id,
      config: { ...(n.config ?? {}) } as Record<string, unknown>,
    })),
    edges: def.edges.map((e) => ({
      id: e.id as string,
      source: e.source,
      target: e.target,
      value: e.value ?? '',
    })),
    properties: [],
  };
}

/**
 * Saves the drip's current shape as its workflow, inside the caller's transaction: creates the
 * workflow (the drip's id, owned by the drip) the first time; keeps the newest version when it
 * already says the same, rewrites it while no contact has entered it, else adds a version; makes
 * it THE active version exactly when the drip is active; and moves the running contacts onto it
 * (at the same node). A migrated drip's workflow is its new owner's and is left alone.
 */
export async function saveDripWorkflow(
  tx: Queryable,
  accountId: string,
  dripId: string,
  by: Actor,
): Promise<void> {
  const drip = await findDrip(tx, accountId, dripId);
  if (!drip || drip.workflow_id) return;
  const steps = await stepsOf(tx, accountId, [drip.id]);
  const definition = storedDefinition(dripDefinition(drip, steps));
  const dripSteps = Object.fromEntries(steps.map((s, i) => [`send-${i + 1}`, s.id]));
  const name = `Drip ${drip.name}`.slice(0, 200);

  if (await findDripWorkflow(tx, accountId, drip.id)) {
    await setDripWorkflow(tx, accountId, drip.id, { name: drip.name, drip: true, by });
  } else {
    await insertWorkflow(tx, accountId, { id: drip.id, name: drip.name, by, drip: true });
  }
  const latest = (await versionsOf(tx, accountId, [drip.id])).at(-1);
  let versionId: string;
  if (
    latest &&
    isDeepStrictEqual(latest.definition, definition) &&
    isDeepStrictEqual(latest.drip_steps, dripSteps)
  ) {
    versionId = latest.id;
  } else if (latest && !latest.readonly) {
    versionId = latest.id;
    await setDripVersion(tx, accountId, versionId, { name, definition, dripSteps, by });
  } else {
    versionId = newId();
    await insertVersion(tx, accountId, {
      id: versionId,
      workflowId: drip.id,
      name,
      definition,
      by,
      dripSteps,
    });
  }
  await setActiveVersion(tx, accountId, drip.id, drip.active ? versionId : null);
  await moveLiveRuns(
    tx,
    accountId,
    drip.id,
    versionId,
    definition.nodes.map((n) => n.id),
  );
}
