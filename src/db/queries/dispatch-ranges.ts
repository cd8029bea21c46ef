/**
 * SQL of range dispatch (migration 0032): a bulk send's messages are handed out in id order from
 * its job's index, a range at a time, under a lease held in dispatch_ranges. Claiming writes one
 * range row and the job's cursor, never the message rows.
 */
import type { Queryable } from '../client.ts';
import { dailyCappedSql } from './daily-caps.ts';

/**
 * A quiet-hours hold as the keys of dispatch_cursors and dispatch_ranges carry it: the instant the
 * messages may go, or '-infinity' for none. Kept as PostgreSQL's text of the value, never a JS Date
 * (milliseconds): a key must come back exactly, or its cursor could never be moved or closed.
 */
export type Hold = string;

/** A job with bulk messages not yet handed out, its cursor row locked by the claiming transaction. */
export interface OpenJob {
  account_id: string;
  id: string;
  /** The quiet-hours hold this cursor hands out ('-infinity': none); a job has one cursor per hold. */
  not_before: Hold;
  /** The last message id handed out; null before the first range. */
  cursor: string | null;
}

/** A claimed range whose lease passed (its worker died or stalled), locked for takeover. */
export interface ExpiredRange {
  account_id: string;
  job_id: string;
  /** The hold its messages share (ranges never mix holds). */
  not_before: Hold;
  lo: string;
  hi: string;
}

/** A range of a job being dispatched, as the dispatcher holds it. */
export interface RangeRef {
  accountId: string;
  jobId: string;
  /** The hold of its messages ('-infinity': none). */
  notBefore: Hold;
  lo: string;
  hi: string;
  /** The token of this claim (migration 0201): renewals and marks hold only while it is the range's. */
  owner: string;
}

/**
 * A queued bulk message as range dispatch reads it: what to submit and whether its contact
 * stopped. Its job gives the account; its number is read once per range (rangeNumbers).
 */
export interface RangeMessage {
  id: string;
  attempts: number;
  price: number;
  from_number: string;
  to_number: string;
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  /** Null when the message has none. */
  media: { url: string }[] | null;
  phone_number_id: string | null;
  /** The contact opted out or is blocked since the message was queued. */
  stopped: boolean;
  /** When its validity period ends (null: none). */
  expires_at: Date | null;
  /** That time has passed: it fails as expired instead of going. */
  expired: boolean;
}

/** A sending number of a range, as a claim checks it. */
export interface RangeNumber {
  id: string;
  number_active: boolean;
  number_verified: boolean;
  provider: string | null;
  throughput_mps: number | null;
  /** Under a daily cap, its own or a group's (migration 0420). */
  daily_capped: boolean;
}

/**
 * Locks the cursor of the next job to hand out bulk messages of, among those whose hold (quiet
 * hours) has passed (a job has one cursor per hold). Accounts take turns (issue 25): the account
 * that was handed out the fewest messages per unit of its weight (`dispatch_shares.served`, see
 * claimRange) goes next, an account with no share yet first (a tie: the newer job's); within it,
 * its transactional jobs (one or a few recipients, SMPP submissions) before bulk ones, then the oldest.
 * A job another lane is claiming from is passed over for the account's next open one (many small
 * jobs, such as an SMPP client's windows, are claimed side by side); when every open job of the
 * account is being claimed from, it waits for the first (that transaction is a few milliseconds
 * long), so that lanes on one big send take turns rather than go idle. Call inside a transaction.
 */
export async function lockOpenJob(db: Queryable): Promise<OpenJob | undefined> {
  return (await openJob(db, 'SKIP LOCKED')) ?? (await openJob(db, ''));
}

async function openJob(db: Queryable, wait: 'SKIP LOCKED' | ''): Promise<OpenJob | undefined> {
  const { rows } = await db.query<OpenJob>({
    name: `dispatch-lock-open-job${wait ? '-skip' : ''}`,
    text: `WITH turn AS (
             SELECT c.account_id FROM dispatch_cursors c
             LEFT JOIN dispatch_shares s ON s.account_id = c.account_id
             WHERE c.not_before <= now()
             -- A tie (an account just brought level, see setSendJobCounts) goes to the newer job.
             ORDER BY s.served NULLS FIRST, c.created_at DESC LIMIT 1
           )
           SELECT c.account_id, c.job_id AS id, c.not_before::text AS not_before, c.cursor FROM dispatch_cursors c
           WHERE c.account_id = (SELECT account_id FROM turn) AND c.not_before <= now()
           ORDER BY c.transactional DESC, c.created_at, c.job_id, c.not_before LIMIT 1 FOR UPDATE OF c ${wait}`,
  });
  return rows[0];
}

/**
 * Locks one range whose lease has passed, skipping ranges other workers are taking over and ranges
 * with a group still in flight or not yet reconciled (dispatch_inflight): its messages may have
 * reached the carrier, and must not be sent again before that is settled.
 */
export async function lockExpiredRange(db: Queryable): Promise<ExpiredRange | undefined> {
  const { rows } = await db.query<ExpiredRange>({
    name: 'dispatch-lock-expired-range',
    text: `SELECT account_id, job_id, not_before::text AS not_before, lo, hi FROM dispatch_ranges r
           WHERE claimed_until < now()
             AND NOT EXISTS (SELECT 1 FROM dispatch_inflight f WHERE f.range_account_id = r.account_id
                               AND f.range_job_id = r.job_id AND f.range_lo = r.lo)
           ORDER BY claimed_until LIMIT 1 FOR UPDATE SKIP LOCKED`,
  });
  return rows[0];
}

const RANGE_SELECT = `SELECT m.id, m.attempts, m.price::float8 AS price, m.from_number, m.to_number,
         m.body, m.encoding, m.segments, nullif(m.media, '[]'::jsonb) AS media, m.phone_number_id,
         coalesce(c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL, false) AS stopped,
         m.expires_at, coalesce(m.expires_at <= now(), false) AS expired
  FROM messages m
  LEFT JOIN contacts c ON c.account_id = m.account_id AND c.id = m.contact_id`;

/** The sending numbers of a range (a handful: the numbers of the job's group). */
export async function rangeNumbers(db: Queryable, accountId: string, ids: string[]): Promise<RangeNumber[]> {
  const { rows } = await db.query<RangeNumber>({
    name: 'dispatch-range-numbers',
    text: `SELECT n.id, n.status = 'active' AS number_active, n.verified AS number_verified, n.provider,
                  n.throughput_mps, ${dailyCappedSql('n')} AS daily_capped
           FROM phone_numbers n WHERE n.account_id = $1 AND n.id = ANY($2::uuid[])`,
    values: [accountId, ids],
  });
  return rows;
}

/** A bulk message belongs to the cursor or range whose hold ($5) is its own. */
const SAME_HOLD = `coalesce(m.not_before, '-infinity') = $5::timestamptz`;

/** The next queued bulk messages of a job after its cursor, in id order (the job's index serves it). */
export async function jobMessagesAfter(db: Queryable, job: OpenJob, limit: number): Promise<RangeMessage[]> {
  const { rows } = await db.query<RangeMessage>({
    name: 'dispatch-job-messages-after',
    text: `${RANGE_SELECT}
           -- No "cursor IS NULL OR": the generic plan of a prepared statement must bound the index scan.
           WHERE m.account_id = $1 AND m.job_id = $2 AND m.id > coalesce($3::uuid, '00000000-0000-0000-0000-000000000000')
             AND m.bulk AND m.status = 'queued' AND ${SAME_HOLD}
           ORDER BY m.id LIMIT $4`,
    values: [job.account_id, job.id, job.cursor, limit, job.not_before],
  });
  return rows;
}

/** The still-queued messages of a claimed range, in id order. */
export async function rangeMessages(db: Queryable, r: ExpiredRange): Promise<RangeMessage[]> {
  const { rows } = await db.query<RangeMessage>({
    name: 'dispatch-range-messages',
    text: `${RANGE_SELECT}
           WHERE m.account_id = $1 AND m.job_id = $2 AND m.id BETWEEN $3 AND $4
             AND m.bulk AND m.status = 'queued' AND ${SAME_HOLD}
           ORDER BY m.id`,
    values: [r.account_id, r.job_id, r.lo, r.hi, r.not_before],
  });
  return rows;
}

/**
 * Records a claimed range [lo, hi] of a job under a lease and moves the job's cursor to hi;
 * `exhausted` closes the job for range claims (every bulk message of it has been handed out).
 * The job row itself is not written: recording outcomes updates its counters (JOB_SETTLE).
 * The account's share grows by the range's `size` over its dispatch weight. A first share starts
 * at the level of the others (the least of those with open jobs; with none, the most of all), and
 * an account that was idle is brought up to that level when its next job opens (setSendJobCounts):
 * idling earns no turns.
 */
export async function claimRange(
  db: Queryable,
  r: RangeRef & { leaseSeconds: number; exhausted: boolean; size: number },
): Promise<void> {
  await db.query({
    name: 'dispatch-claim-range',
    text: `WITH share AS (
             INSERT INTO dispatch_shares AS s (account_id, served)
             SELECT $1, coalesce((SELECT min(o.served) FROM dispatch_shares o
                                   WHERE o.account_id <> $1
                                     AND EXISTS (SELECT 1 FROM dispatch_cursors c WHERE c.account_id = o.account_id)),
                                 (SELECT max(o.served) FROM dispatch_shares o WHERE o.account_id <> $1), 0)
                        + $9::float8 / a.dispatch_weight
               FROM accounts a WHERE a.id = $1
             ON CONFLICT (account_id) DO UPDATE
               SET served = s.served + $9::float8 / (SELECT dispatch_weight FROM accounts WHERE id = $1)
           ), ins AS (
             INSERT INTO dispatch_ranges (account_id, job_id, not_before, lo, hi, claimed_until, owner)
             VALUES ($1, $2, $7::timestamptz, $3, $4, now() + make_interval(secs => $5), $8)
           ), done AS (
             DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2 AND not_before = $7::timestamptz AND $6
           )
           UPDATE dispatch_cursors SET cursor = $4
           WHERE account_id = $1 AND job_id = $2 AND not_before = $7::timestamptz AND NOT $6`,
    values: [r.accountId, r.jobId, r.lo, r.hi, r.leaseSeconds, r.exhausted, r.notBefore, r.owner, r.size],
  });
}

/** Closes a job's cursor for range claims: nothing queued of its hold is left after it. */
export async function closeJobDispatch(db: Queryable, job: OpenJob): Promise<void> {
  await db.query(
    'DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2 AND not_before = $3::timestamptz',
    [job.account_id, job.id, job.not_before],
  );
}

/** Renews the lease of a range being taken over, under the taker's token. */
export async function renewRange(
  db: Queryable,
  r: ExpiredRange,
  leaseSeconds: number,
  owner: string,
): Promise<void> {
  await db.query(
    `UPDATE dispatch_ranges SET claimed_until = now() + make_interval(secs => $4), owner = $5
     WHERE account_id = $1 AND job_id = $2 AND lo = $3`,
    [r.account_id, r.job_id, r.lo, leaseSeconds, owner],
  );
}

/**
 * Ends a range once its submissions are recorded: removed when none of its messages is still
 * queued (`complete`: every one was submitted or failed), else (some got no rate slot) left with
 * an expired lease so that the next takeover round sends the rest at once.
 */
export async function finishRange(db: Queryable, r: RangeRef, complete: boolean): Promise<void> {
  if (complete) {
    await db.query({
      name: 'dispatch-drop-range',
      text: 'DELETE FROM dispatch_ranges WHERE account_id = $1 AND job_id = $2 AND lo = $3',
      values: [r.accountId, r.jobId, r.lo],
    });
    return;
  }
  await db.query({
    name: 'dispatch-finish-range',
    text: `WITH left_over AS (
             SELECT EXISTS (SELECT 1 FROM messages m WHERE m.account_id = $1 AND m.job_id = $2
                              AND m.id BETWEEN $3 AND $4 AND m.bulk AND m.status = 'queued' AND ${SAME_HOLD}) AS remaining
           ), del AS (
             DELETE FROM dispatch_ranges WHERE account_id = $1 AND job_id = $2 AND lo = $3
               AND NOT (SELECT remaining FROM left_over)
           )
           UPDATE dispatch_ranges SET claimed_until = now()
           WHERE account_id = $1 AND job_id = $2 AND lo = $3 AND (SELECT remaining FROM left_over)`,
    values: [r.accountId, r.jobId, r.lo, r.hi, r.notBefore],
  });
}
