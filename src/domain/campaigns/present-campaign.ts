import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import type { CampaignRow } from '../../db/queries/campaigns.ts';
import { findList, type ListRow } from '../../db/queries/lists.ts';
import type { SendJobRow } from '../../db/queries/send-jobs.ts';
import type { Campaign as CampaignSchema, Job as JobSchema } from '../../schemas/campaigns.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';
import { type List, presentLists } from '../lists/present-list.ts';

const TRIGGER_NAMES = { M: 'Manual', S: 'Scheduled', FU: 'File upload' } as const;

/** The Job shape: one send of a campaign, with its counts and charge. Unset fields are left out. */
export function presentJob(
  j: Omit<SendJobRow, 'created_at' | 'send_at'> & {
    created_at: Date | string;
    send_at: Date | string | null;
  },
) {
  // Unset fields (sendAt of a send at once, error of one that did not fail) are left out, never null.
  return omitNullsAs<Static<typeof JobSchema>>({
    id: j.id,
    submitted: j.submitted,
    queued: j.queued,
    status: j.status,
    price: Number(j.price),
    failures: j.failures,
    invalid: j.invalid,
    sendAt: j.send_at ? new Date(j.send_at).toISOString() : null,
    error: j.error ?? null,
    created: stamp(j.created_at, j.created_by),
  });
}

/** A Job as the API shows it. */
export type Job = ReturnType<typeof presentJob>;

/**
 * Where a campaign stands: paused; running (a worker holds the run); scheduled (next_execution
 * set); sent (a job ran and nothing is scheduled); failed (the last run ended in an expected
 * failure); draft (never run).
 */
function statusOf(c: CampaignRow): string {
  if (c.paused_at) return 'paused';
  if (c.claimed_until && c.claimed_until > new Date()) return 'running';
  if (c.next_execution) return 'scheduled';
  if (c.last_error) return 'failed';
  if (c.last_job_id) return 'sent';
  return 'draft';
}

/**
 * The Campaign shape of the API (plus status and lastError). An unset field is left out, never null:
 * the published description marks nothing nullable.
 */
export function presentCampaign(c: CampaignRow, list: List | null) {
  return omitNullsAs<Static<typeof CampaignSchema>>({
    id: c.id,
    name: c.name,
    description: c.description,
    fieldMappings: c.field_mappings as Static<typeof CampaignSchema>['fieldMappings'],
    filters: omitNulls({
      list,
      q: c.filters.q ?? null,
      attributes: c.filters.attributes ?? [],
      tags: c.filters.tags ?? [],
      contacts: c.filters.contacts?.length ? c.filters.contacts : null,
      all: c.filters.all === true,
    }),
    media: c.media,
    phoneNumberFilter: c.group_id ? { group: { id: c.group_id } } : null,
    schedule: c.schedule,
    nextExecution: c.next_execution ? new Date(c.next_execution).toISOString() : null,
    reporting: c.reporting,
    template: c.template,
    trigger: { code: c.trigger_code, name: TRIGGER_NAMES[c.trigger_code] },
    created: stamp(c.created_at, c.created_by),
    updated: stamp(c.updated_at, c.updated_by),
    paused: c.paused_at ? new Date(c.paused_at).toISOString() : null,
    status: statusOf(c),
    lastJob: c.last_job ? presentJob(c.last_job) : null,
    lastError: c.last_error,
  });
}

/** A campaign as the API shows it. */
export type Campaign = ReturnType<typeof presentCampaign>;

/** Campaigns in the API shape, each with its list (left out when none, or since deleted). */
export async function presentCampaigns(
  db: Queryable,
  accountId: string,
  rows: CampaignRow[],
): Promise<Campaign[]> {
  const ids = [...new Set(rows.map((r) => r.list_id).filter((id): id is string => id !== null))];
  const found = (await Promise.all(ids.map((id) => findList(db, accountId, id)))).filter(
    (l): l is ListRow => l !== undefined,
  );
  const lists = new Map((await presentLists(db, accountId, found)).map((l) => [l.id, l]));
  return rows.map((r) => presentCampaign(r, (r.list_id && lists.get(r.list_id)) || null));
}
