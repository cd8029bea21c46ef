/**
 * SQL of range dispatch (migration 0032): a bulk send's messages are handed out in id order from
 * its job's index, a range at a time, under a lease held in dispatch_ranges. Claiming writes one
 * range row and the job's cursor, never the message rows.
 */
import { type Db, type Queryable, withTx } from '../client.ts';
import { dailyCappedSql } from './daily-caps.ts';

// Turns are taken one at a time, across the lanes of every dispatcher process.
const TURN_LOCK = `hashtextextended('sparrow:dispatch-turn', 0)`;

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

/** The account whose turn of range dispatch it is, charged for the claim it is about to make. */
export interface Turn {
  accountId: string;
  /** What it was charged, in messages (settleTurn brings it to what the claim took). */
  charged: number;
}

/** What a claim of an account is expected to take: at most `limit`, at most its provider's grain. */
export interface TurnCharge {
  limit: number;
  /** The grain of each provider seen (domain/send/dispatch/grain.ts). */
  grains: { provider: string; grain: number }[];
  /** The grain of a provider not among them. */
  unknown: number;
}

/**
 * Takes the next turn of range dispatch (issue 25) and charges it at once: the account with an
 * open job (its hold passed) that was handed out the fewest messages per unit of its weight
 * (`dispatch_shares.served`), an account with no share yet first (it starts level with the others:
 * the least share of the accounts with open jobs, or with none, the most of all), a tie to the
 * newer job's. Its share grows by the claim it is expected to make (TurnCharge: the least grain of
 * its numbers' providers) over its weight. Turns are taken one at a time (a transaction-level
 * advisory lock) and each commits on its own, before the claim that uses it: the next lane, in
 * this process or another, sees the charge of every turn taken before its own. (Chosen inside the
 * claim, as before, four lanes claiming at once all saw the same shares and took the same
 * account's jobs: turns went in bursts of four ranges, and two accounts at weights 3:1 shared
 * 55.6–71.4 % instead of 75 %.) Its commit does not wait for the disk: a share lost in a crash
 * only moves a turn.
 */
export async function takeTurn(
  db: Db,
  charge: TurnCharge,
  passOver: string[] = [],
): Promise<Turn | undefined> {
  return withTx(
    db,
    async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${TURN_LOCK})`);
      // A fresh snapshot, taken under the lock: it sees every turn committed before this one.
      const { rows } = await tx.query<{ account_id: string; charged: number }>({
        name: 'dispatch-take-turn',
        text: `WITH t AS (
               SELECT c.account_id FROM dispatch_cursors c
               LEFT JOIN dispatch_shares s ON s.account_id = c.account_id
               WHERE c.not_before <= now() AND c.account_id <> ALL($5::uuid[])
               -- A tie (an account just brought level, see setSendJobCounts) goes to the newer job.
               ORDER BY s.served NULLS FIRST, c.created_at DESC LIMIT 1
             ), charge AS (
               SELECT t.account_id, a.dispatch_weight AS weight,
                      least($1::int, coalesce((SELECT min(coalesce(g.grain, $4::int)) FROM phone_numbers p
                                                 LEFT JOIN unnest($2::text[], $3::int[]) AS g(provider, grain)
                                                   ON g.provider = p.provider
                                                WHERE p.account_id = t.account_id), $1::int)) AS charged
                 FROM t JOIN accounts a ON a.id = t.account_id
             )
             INSERT INTO dispatch_shares AS s (account_id, served)
             SELECT charge.account_id,
                    coalesce((SELECT min(o.served) FROM dispatch_shares o
                               WHERE o.account_id <> charge.account_id
                                 AND EXISTS (SELECT 1 FROM dispatch_cursors c WHERE c.account_id = o.account_id)),
                             (SELECT max(o.served) FROM dispatch_shares o WHERE o.account_id <> charge.account_id), 0)
                    + charge.charged::float8 / charge.weight
               FROM charge
             ON CONFLICT (account_id) DO UPDATE
               SET served = s.served + (SELECT charged::float8 / weight FROM charge)
             RETURNING s.account_id, (SELECT charged FROM charge) AS charged`,
        values: [
          Math.max(0, Math.trunc(charge.limit)),
          charge.grains.map((g) => g.provider),
          charge.grains.map((g) => Math.trunc(g.grain)),
          Math.trunc(charge.unknown),
          passOver,
        ],
      });
      const row = rows[0];
      return row ? { accountId: row.account_id, charged: row.charged } : undefined;
    },
    { asyncCommit: true },
  );
}

/**
 * Brings a turn's charge to what its claim took (`taken` messages; 0 when it took none or failed):
 * the account's share moves by (taken - charged) / its weight. A transaction of its own after the
 * claim's commit, which does not wait for the disk: the claim never holds a share's row lock, so
 * taking a turn never waits for a claim or a disk flush.
 */
export async function settleTurn(db: Db, turn: Turn, taken: number): Promise<void> {
  const delta = Math.trunc(taken) - turn.charged;
  if (delta === 0) return;
  await withTx(
    db,
    (tx) =>
      tx.query({
        name: 'dispatch-settle-turn',
        text: `UPDATE dispatch_shares SET served = served + $2::float8 / (SELECT dispatch_weight FROM accounts WHERE id = $1)
               WHERE account_id = $1`,
        values: [turn.accountId, delta],
      }),
    { asyncCommit: true },
  );
}

/**
 * Locks the cursor of the account's next job to hand out bulk messages of, among those whose hold
 * (quiet hours) has passed (a job has one cursor per hold): its transactional jobs (one or a few
 * recipients, SMPP submissions) before bulk ones, then the oldest. A job another lane is claiming
 * from is passed over for the account's next open one (many small jobs, such as an SMPP client's
 * windows, are claimed side by side); when every open job of the account is being claimed from, it
 * waits for the first (that transaction is a few milliseconds long), so that lanes on one big send
 * take turns rather than go idle. Call inside a transaction.
 */
export async function lockOpenJob(db: Queryable, accountId: string): Promise<OpenJob | undefined> {
  return (await openJob(db, accountId, 'SKIP LOCKED')) ?? (await openJob(db, accountId, ''));
}

async function openJob(
  db: Queryable,
  accountId: string,
  wait: 'SKIP LOCKED' | '',
): Promise<OpenJob | undefined> {
  const { rows } = await db.query<OpenJob>({
    name: `dispatch-lock-open-job${wait ? '-skip' : ''}`,
    text: `SELECT c.account_id, c.job_id AS id, c.not_before::text AS not_before, c.cursor FROM dispatch_cursors c
           WHERE c.account_id = $1 AND c.not_before <= now()
           ORDER BY c.transactional DESC, c.created_at, c.job_id, c.not_before LIMIT 1 FOR UPDATE OF c ${wait}`,
    values: [accountId],
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
 * The account's share is not written here either: its turn was charged before (takeTurn) and is
 * settled after the commit (settleTurn).
 */
export async function claimRange(
  db: Queryable,
  r: RangeRef & { leaseSeconds: number; exhausted: boolean },
): Promise<void> {
  await db.query({
    name: 'dispatch-claim-range',
    text: `WITH ins AS (
             INSERT INTO dispatch_ranges (account_id, job_id, not_before, lo, hi, claimed_until, owner)
             VALUES ($1, $2, $7::timestamptz, $3, $4, now() + make_interval(secs => $5), $8)
           ), done AS (
             DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2 AND not_before = $7::timestamptz AND $6
           )
           UPDATE dispatch_cursors SET cursor = $4
           WHERE account_id = $1 AND job_id = $2 AND not_before = $7::timestamptz AND NOT $6`,
    values: [r.accountId, r.jobId, r.lo, r.hi, r.leaseSeconds, r.exhausted, r.notBefore, r.owner],
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
