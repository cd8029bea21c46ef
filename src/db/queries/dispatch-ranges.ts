/**
 * SQL of range dispatch (migration 0032): a bulk send's messages are handed out in id order from
 * its job's index, a range at a time, under a lease held in dispatch_ranges. Claiming writes one
 * range row and the job's cursor, never the message rows.
 */
import type { Queryable } from '../client.ts';

/** A job with bulk messages not yet handed out, its cursor row locked by the claiming transaction. */
export interface OpenJob {
  account_id: string;
  id: string;
  /** The last message id handed out; null before the first range. */
  cursor: string | null;
}

/** A claimed range whose lease passed (its worker died or stalled), locked for takeover. */
export interface ExpiredRange {
  account_id: string;
  job_id: string;
  lo: string;
  hi: string;
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
}

/** A sending number of a range, as a claim checks it. */
export interface RangeNumber {
  id: string;
  number_active: boolean;
  provider: string | null;
  throughput_mps: number | null;
}

/**
 * Locks the oldest job with bulk messages not yet handed out (and not held by quiet hours). Waits for a concurrent claim of the
 * same job (that transaction is a few milliseconds long) instead of skipping it, so that two lanes
 * on one big send take turns rather than one of them going idle. Call inside a transaction.
 */
export async function lockOpenJob(db: Queryable): Promise<OpenJob | undefined> {
  const { rows } = await db.query<OpenJob>({
    name: 'dispatch-lock-open-job',
    text: `SELECT account_id, job_id AS id, cursor FROM dispatch_cursors
           WHERE not_before IS NULL OR not_before <= now()
           ORDER BY created_at, job_id LIMIT 1 FOR UPDATE`,
  });
  return rows[0];
}

/** Locks one range whose lease has passed, skipping ranges other workers are taking over. */
export async function lockExpiredRange(db: Queryable): Promise<ExpiredRange | undefined> {
  const { rows } = await db.query<ExpiredRange>({
    name: 'dispatch-lock-expired-range',
    text: `SELECT account_id, job_id, lo, hi FROM dispatch_ranges
           WHERE claimed_until < now() ORDER BY claimed_until LIMIT 1 FOR UPDATE SKIP LOCKED`,
  });
  return rows[0];
}

const RANGE_SELECT = `SELECT m.id, m.attempts, m.price::float8 AS price, m.from_number, m.to_number,
         m.body, m.encoding, m.segments, nullif(m.media, '[]'::jsonb) AS media, m.phone_number_id,
         coalesce(c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL, false) AS stopped
  FROM messages m
  LEFT JOIN contacts c ON c.account_id = m.account_id AND c.id = m.contact_id`;

/** The sending numbers of a range (a handful: the numbers of the job's group). */
export async function rangeNumbers(db: Queryable, accountId: string, ids: string[]): Promise<RangeNumber[]> {
  const { rows } = await db.query<RangeNumber>({
    name: 'dispatch-range-numbers',
    text: `SELECT id, status = 'active' AS number_active, provider, throughput_mps
           FROM phone_numbers WHERE account_id = $1 AND id = ANY($2::uuid[])`,
    values: [accountId, ids],
  });
  return rows;
}

/** The next queued bulk messages of a job after its cursor, in id order (the job's index serves it). */
export async function jobMessagesAfter(db: Queryable, job: OpenJob, limit: number): Promise<RangeMessage[]> {
  const { rows } = await db.query<RangeMessage>({
    name: 'dispatch-job-messages-after',
    text: `${RANGE_SELECT}
           -- No "cursor IS NULL OR": the generic plan of a prepared statement must bound the index scan.
           WHERE m.account_id = $1 AND m.job_id = $2 AND m.id > coalesce($3::uuid, '00000000-0000-0000-0000-000000000000')
             AND m.bulk AND m.status = 'queued'
           ORDER BY m.id LIMIT $4`,
    values: [job.account_id, job.id, job.cursor, limit],
  });
  return rows;
}

/** The still-queued messages of a claimed range, in id order. */
export async function rangeMessages(db: Queryable, r: ExpiredRange): Promise<RangeMessage[]> {
  const { rows } = await db.query<RangeMessage>({
    name: 'dispatch-range-messages',
    text: `${RANGE_SELECT}
           WHERE m.account_id = $1 AND m.job_id = $2 AND m.id BETWEEN $3 AND $4
             AND m.bulk AND m.status = 'queued'
           ORDER BY m.id`,
    values: [r.account_id, r.job_id, r.lo, r.hi],
  });
  return rows;
}

/**
 * Records a claimed range [lo, hi] of a job under a lease and moves the job's cursor to hi;
 * `exhausted` closes the job for range claims (every bulk message of it has been handed out).
 * The job row itself is not written: recording outcomes updates its counters (JOB_SETTLE).
 */
export async function claimRange(
  db: Queryable,
  r: { accountId: string; jobId: string; lo: string; hi: string; leaseSeconds: number; exhausted: boolean },
): Promise<void> {
  await db.query({
    name: 'dispatch-claim-range',
    text: `WITH ins AS (
             INSERT INTO dispatch_ranges (account_id, job_id, lo, hi, claimed_until)
             VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
           ), done AS (
             DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2 AND $6
           )
           UPDATE dispatch_cursors SET cursor = $4 WHERE account_id = $1 AND job_id = $2 AND NOT $6`,
    values: [r.accountId, r.jobId, r.lo, r.hi, r.leaseSeconds, r.exhausted],
  });
}

/** Closes a job for range claims: nothing queued is left after its cursor. */
export async function closeJobDispatch(db: Queryable, accountId: string, jobId: string): Promise<void> {
  await db.query('DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2', [accountId, jobId]);
}

/** Renews the lease of a range being taken over. */
export async function renewRange(db: Queryable, r: ExpiredRange, leaseSeconds: number): Promise<void> {
  await db.query(
    `UPDATE dispatch_ranges SET claimed_until = now() + make_interval(secs => $4)
     WHERE account_id = $1 AND job_id = $2 AND lo = $3`,
    [r.account_id, r.job_id, r.lo, leaseSeconds],
  );
}

/**
 * Ends a range once its submissions are recorded: removed when none of its messages is still
 * queued (`complete`: every one was submitted or failed), else (some got no rate slot) left with
 * an expired lease so that the next takeover round sends the rest at once.
 */
export async function finishRange(
  db: Queryable,
  r: { accountId: string; jobId: string; lo: string; hi: string },
  complete: boolean,
): Promise<void> {
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
                              AND m.id BETWEEN $3 AND $4 AND m.bulk AND m.status = 'queued') AS remaining
           ), del AS (
             DELETE FROM dispatch_ranges WHERE account_id = $1 AND job_id = $2 AND lo = $3
               AND NOT (SELECT remaining FROM left_over)
           )
           UPDATE dispatch_ranges SET claimed_until = now()
           WHERE account_id = $1 AND job_id = $2 AND lo = $3 AND (SELECT remaining FROM left_over)`,
    values: [r.accountId, r.jobId, r.lo, r.hi],
  });
}
