import type { Static } from '@sinclair/typebox';
import type { JobRow, StatusCount } from '../../db/queries/jobs.ts';
import type { ContactAction } from '../../schemas/enums.ts';
import type { JobResource as JobResourceSchema } from '../../schemas/jobs.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { type Actor, stamp } from '../actor.ts';
import { presentJob } from '../campaigns/present-campaign.ts';

/** The message statuses a send job counts (GET …/messages shows the same statuses). */
export const COUNTED_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed'] as const;

/** How many of a send job's messages are in each status; `cancelled` (failed by a cancel) is not in `failed`. */
export type MessageCounts = Record<(typeof COUNTED_STATUSES)[number] | 'cancelled', number>;

/** Folds status counts (jobMessageCounts) into the `counts` object. */
export function toCounts(rows: StatusCount[]): MessageCounts {
  const counts = Object.fromEntries([...COUNTED_STATUSES, 'cancelled'].map((s) => [s, 0])) as MessageCounts;
  for (const r of rows) {
    if (r.cancelled) counts.cancelled += r.n;
    else if (r.status in counts) counts[r.status as keyof MessageCounts] += r.n;
  }
  return counts;
}

/**
 * The Job shape of GET …/jobs: the interface's Job (id, submitted, status, price, failures,
 * invalid, created), plus `kind`; a send's `counts` of its messages by status; a bulk contact
 * operation's `action` and `progress`. Unset fields are left out (never null).
 */
export function presentJobResource(j: JobRow, counts?: MessageCounts): Static<typeof JobResourceSchema> {
  const base = omitNulls(presentJob(j));
  const cancelled = j.cancelled_at ? stamp(j.cancelled_at, j.cancelled_by as Actor | null) : null;
  if (j.kind === 'contacts') {
    const req = (j.request ?? {}) as { action?: ContactAction; listId?: string; tags?: { tag: string }[] };
    const { queued: _q, ...rest } = base;
    return omitNullsAs<Static<typeof JobResourceSchema>>({
      ...rest,
      kind: 'contacts' as const,
      price: 0,
      action: req.action ?? null,
      listId: req.listId ?? null,
      tags: req.tags?.map((t) => t.tag) ?? null,
      progress: { total: j.submitted, done: j.done, failed: j.failures, changed: j.changed },
      cancelled,
      updated: j.updated_at ? stamp(j.updated_at, null) : null,
    });
  }
  return omitNullsAs<Static<typeof JobResourceSchema>>({
    ...base,
    kind: 'send' as const,
    // A cancelled send reads `cancelled`, even while messages it had handed out still finish.
    status: cancelled ? 'cancelled' : j.status,
    campaignId: j.campaign_id,
    counts: counts ?? null,
    cancelled,
  });
}

/** A job as GET …/jobs shows it. */
export type JobResource = ReturnType<typeof presentJobResource>;
