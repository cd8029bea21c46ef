import type { Queryable } from '../../db/client.ts';
import { jobPacing } from '../../db/queries/daily-caps.ts';
import type { JobRow } from '../../db/queries/jobs.ts';
import { AppError } from '../../errors.ts';
import { dailyCapacity, estimateFinish } from '../../messaging/pacing.ts';
import { groupSenderPool } from '../numbers/group-sender-pool.ts';

/** The statuses after which a send has nothing left to send. */
const ENDED = new Set(['completed', 'failed', 'cancelled']);

/**
 * When a send job should finish (ISO), or null once it has (or when nothing is known to send it):
 * from what it has left (the job's `pending`, a scheduled send's recipients), the messages of the
 * account's earlier open sends on the same numbers (their `pending`), its numbers' per-second rates
 * and daily caps (theirs and their groups', less what today used), and when it may start (now, its
 * `sendAt`, or the end of the hold its undispatched messages all wait for). Reads the job's numbers,
 * groups, counters and cursors and the account's other job rows: never its messages.
 */
export async function estimatedFinishAt(
  db: Queryable,
  accountId: string,
  job: JobRow,
): Promise<string | null> {
  if (job.cancelled_at || ENDED.has(job.status)) return null;
  const scheduled = job.status === 'scheduled';
  const left = scheduled ? job.submitted : job.pending;
  if (left <= 0) return null;
  const numberIds = scheduled ? await scheduledNumbers(db, accountId, job) : (job.phone_number_ids ?? []);
  if (numberIds.length === 0) return null;
  const p = await jobPacing(db, accountId, job.id, numberIds);
  const sending = p.numbers.filter((n) => n.active);
  const start = Math.max(p.now, p.heldUntil ?? 0, job.send_at?.getTime() ?? 0);
  const finish = estimateFinish({
    zone: p.timezone,
    now: p.now,
    start,
    messages: left + (scheduled ? 0 : p.ahead),
    rate: sending.reduce((s, n) => s + n.throughput_mps, 0),
    capacity: dailyCapacity(
      sending.map((n) => ({ id: n.id, rate: n.throughput_mps, cap: n.daily_cap, usedToday: n.used_today })),
      p.groups.map((g) => ({ cap: g.daily_cap, usedToday: g.used_today, numberIds: g.number_ids })),
    ),
  });
  return new Date(finish).toISOString();
}

/** The numbers a scheduled send will go from: its group's (the default group's) as they are now. */
async function scheduledNumbers(db: Queryable, accountId: string, job: JobRow): Promise<string[]> {
  const request = (job.request ?? {}) as { phoneNumberFilter?: { group?: { id?: string } } };
  try {
    const pool = await groupSenderPool(db, accountId, request.phoneNumberFilter?.group?.id);
    return pool.numbers.map((n) => n.id);
  } catch (err) {
    // The group is gone or has no verified number: the run will fail; nothing to estimate.
    if (err instanceof AppError) return [];
    throw err;
  }
}
