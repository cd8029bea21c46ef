/** SQL of the dispatcher: claiming queued messages and recording submissions (receipts: message-receipts.ts). */

import { plainArray, textArray } from '../arrays.ts';
import type { Queryable } from '../client.ts';
import { dailyCappedSql } from './daily-caps.ts';
import { dropInflight } from './dispatch-inflight.ts';
import { heardOnce } from './events.ts';
import { MESSAGE_EVENT_DATA, MESSAGE_EVENT_REF } from './messages.ts';

/**
 * Settles the jobs of finished messages, from a CTE `fin(account_id, job_id, n, nf, amount)`:
 * n messages left the queue (sent or failed), nf of them failed and `amount` was refunded.
 * A job whose pending count reaches zero is `completed`.
 */
// Gives back to each account what its failed messages in the `fin` CTE (amount per account and job)
// cost. After the `job` CTE (JOB_SETTLE), which it reads: job rows are locked before account rows,
// in the order an SMPP relay batch takes them (relayExtendSql), so the two never deadlock.
export const REFUND_FAILED = `UPDATE accounts a SET balance = a.balance + s.amount, updated_at = now()
       FROM (SELECT account_id, sum(amount) AS amount FROM fin GROUP BY account_id) s
       WHERE a.id = s.account_id AND s.amount > 0 AND (SELECT count(*) FROM job) >= 0`;

export const JOB_SETTLE = `UPDATE send_jobs j SET failures = j.failures + f.nf, price = j.price - f.amount,
         pending = j.pending - f.n, status = CASE WHEN j.pending - f.n <= 0 THEN 'completed' ELSE 'sending' END
       FROM fin f WHERE j.account_id = f.account_id AND j.id = f.job_id
       RETURNING j.id`;

/** A message eligible for dispatch, locked by the claim transaction. */
export interface DispatchCandidate {
  account_id: string;
  id: string;
  phone_number_id: string | null;
  system: boolean;
  /** The contact opted out or is blocked since the message was queued. */
  stopped: boolean;
  /** Its validity period ended (messages.expires_at): it fails as expired instead of going. */
  expired: boolean;
  number_active: boolean;
  number_verified: boolean;
  provider: string | null;
  throughput_mps: number | null;
  /** Its number is under a daily cap (its own or a group's): the claim asks sparrow_grant_daily. */
  daily_capped: boolean;
}

/**
 * Locks up to `limit` messages due for dispatch (queued and past not_before, or sending with an
 * expired claim: a worker died holding it, and no unreconciled group holds it), oldest first, skipping rows other workers hold and
 * messages of numbers whose current one-second window is used up. Call inside a transaction.
 */
export async function lockDispatchCandidates(
  db: Queryable,
  limit: number,
  exhaustedNumberIds: string[],
): Promise<DispatchCandidate[]> {
  // The queue is read in id order straight from the messages_dispatch index (a sort would read every
  // queued row: with statistics taken before a bulk send the planner believes the queue is tiny).
  // Named: polled several times a second, it was planned anew each time (0.8 ms); the plan is made
  // (and remade after an ANALYZE) with sorts off, as it runs.
  await db.query('SET LOCAL enable_sort = off');
  const { rows } = await db.query<DispatchCandidate>({
    name: 'dispatch-lock-candidates',
    text: `WITH q AS (
       SELECT m.account_id, m.id, m.phone_number_id, m.contact_id, m.system, m.expires_at
       FROM messages m
       WHERE m.queued
         AND ((m.status = 'queued' AND (m.not_before IS NULL OR m.not_before <= now()))
              OR (m.status = 'sending' AND m.claimed_until < now()
                  -- Handed to a provider and not yet reconciled: not before that is settled.
                  AND NOT EXISTS (SELECT 1 FROM dispatch_inflight f WHERE NOT f.ranged AND m.id = ANY(f.ids))))
         AND (cardinality($2::uuid[]) = 0 OR m.phone_number_id IS NULL OR m.phone_number_id <> ALL($2::uuid[]))
       ORDER BY m.id
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     )
     SELECT q.account_id, q.id, q.phone_number_id, q.system,
            coalesce(c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL, false) AS stopped,
            coalesce(q.expires_at <= now(), false) AS expired,
            coalesce(n.status = 'active', false) AS number_active, coalesce(n.verified, false) AS number_verified,
            n.provider, n.throughput_mps, coalesce(${dailyCappedSql('n')}, false) AS daily_capped
     FROM q
     LEFT JOIN contacts c ON c.account_id = q.account_id AND c.id = q.contact_id
     LEFT JOIN phone_numbers n ON n.account_id = q.account_id AND n.id = q.phone_number_id
     -- Oldest first, as claimed (a number's daily cap goes to the oldest): the joins keep no order.
     ORDER BY q.id`,
    values: [limit, exhaustedNumberIds],
  });
  await db.query('SET LOCAL enable_sort = on');
  return rows;
}

/** What the dispatcher hands to a provider for one claimed message. */
export interface ClaimedMessage {
  account_id: string;
  id: string;
  attempts: number;
  from_number: string;
  to_number: string;
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  media: { url: string }[];
  provider: string;
  /** The price charged at accept (refunded when the message finally fails). */
  price: number;
  /** A one-off claim: the provider and error of the previous attempt, recorded before this claim (routing). */
  last_provider?: string | null;
  last_error?: { code: string; description: string } | null;
  /** When its validity period ends (null: none); what is left of it goes to the provider. */
  expires_at?: Date | null;
  /**
   * A one-off claim owing a lookup (settle-uncertain.ts): when its previous attempt, of unknown
   * fate, began; null when none is owed. That attempt is `attempts - 1`.
   */
  uncertain_since?: Date | null;
  /** The lookups of that attempt that failed so far. */
  lookup_failures?: number;
}

/**
 * Marks locked candidates as `sending` under a 30-second claim: attempts + 1 (the submission key
 * is (id, attempts)), the provider chosen, submitted_at = the second the rate window counted them in.
 */
export async function claimMessages(
  db: Queryable,
  claims: { accountId: string; id: string; provider: string }[],
  leaseSeconds: number,
  grantedSecond: number,
): Promise<ClaimedMessage[]> {
  if (claims.length === 0) return [];
  const { rows } = await db.query<ClaimedMessage>(
    `UPDATE messages m SET status = 'sending', attempts = m.attempts + 1, provider = k.provider,
            claimed_until = now() + make_interval(secs => $4), submitted_at = to_timestamp($5), updated_at = now()
     FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS k(account_id, id, provider)
     JOIN messages o ON o.account_id = k.account_id AND o.id = k.id
     WHERE m.account_id = k.account_id AND m.id = k.id
     RETURNING m.account_id, m.id, m.attempts, m.from_number, m.to_number, m.body, m.encoding, m.segments,
               m.media, m.provider, m.price::float8 AS price, o.provider AS last_provider, m.error AS last_error,
               m.expires_at, m.uncertain_since, m.lookup_failures`,
    [
      claims.map((c) => c.accountId),
      claims.map((c) => c.id),
      claims.map((c) => c.provider),
      leaseSeconds,
      grantedSecond,
    ],
  );
  return rows;
}

/** The outcome of one submission, as the dispatcher records it. */
export interface SubmissionOutcome {
  accountId: string;
  id: string;
  attempt: number;
  /** sent: accepted; retry: back to the queue after `retryAfterSeconds`; failed: final. */
  outcome: 'sent' | 'retry' | 'failed';
  provider: string | null;
  providerMessageId: string | null;
  error: { code: string; description: string } | null;
  retryAfterSeconds: number;
  /** The price charged at accept: refunded on a final failure. */
  price: number;
  /**
   * Claimed as part of a job range (the row still reads `queued`, attempts not yet counted) rather
   * than one by one (the row is `sending` with attempts already counted).
   */
  ranged: boolean;
  /** The second (Unix) the rate window counted a ranged submission in. */
  submittedSecond: number | null;
  /** The provider's receipts name only its own id: record it in provider_refs for the lookup. */
  refLookup: boolean;
  /**
   * Something was handed to the provider under this claim. False when a lookup alone settled or
   * deferred it (settle-uncertain.ts): the attempt is not counted (attempts stays the looked-up one).
   */
  handed: boolean;
  /**
   * With `retry`: the lookup of an attempt of unknown fate could not be made, and is owed before
   * any resend: when that attempt began, and how many lookups of it failed so far.
   */
  owed: { since: Date; failures: number } | null;
}

/**
 * Records submission outcomes set-based, only for messages still in the claim that submitted them
 * (`sending` under the same attempt, or for a ranged claim still `queued` with the attempt not yet
 * counted): a claim that expired and was taken over and recorded first is not overwritten. A retry
 * owing a lookup keeps when its uncertain attempt began (uncertain_since, lookup_failures); any
 * other outcome clears it. In the same statement: a final failure refunds its price to the account
 * and its job, a retried ranged message moves to the per-message queue, carrier ids that need a
 * lookup go to provider_refs, `message-sent` is emitted for accepted messages and `message-status`
 * for failures, and the in-flight groups `drop` (dispatch_inflight) whose every outcome this
 * completes are deleted (one round trip, not two: bench:peer's SMPP race flushed ~460 times a round).
 * Answers the counts recorded.
 */
export async function recordSubmissions(
  db: Queryable,
  outcomes: SubmissionOutcome[],
  drop: string[] = [],
): Promise<{ sent: number; retried: number; failed: number }> {
  if (outcomes.length === 0) {
    await dropInflight(db, drop);
    return { sent: 0, retried: 0, failed: 0 };
  }
  const { rows } = await db.query<{ sent: number; retried: number; failed: number }>({
    name: 'dispatch-record-submissions',
    text: `WITH r AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[],
                            $8::int[], $9::numeric[], $10::bool[], $11::float8[], $12::bool[], $13::bool[],
                            $14::timestamptz[], $15::int[])
         AS r(account_id, id, attempt, outcome, provider, pmid, error, retry_after, old_price, ranged, submitted, lookup,
              handed, uncertain_since, lookup_failures)
     ), upd AS (
       UPDATE messages m SET
         status = CASE r.outcome WHEN 'sent' THEN 'sent' WHEN 'retry' THEN 'queued' ELSE 'failed' END,
         attempts = CASE WHEN r.handed THEN r.attempt ELSE r.attempt - 1 END,
         uncertain_since = CASE WHEN r.outcome = 'retry' THEN r.uncertain_since END,
         lookup_failures = CASE WHEN r.outcome = 'retry' AND r.uncertain_since IS NOT NULL THEN r.lookup_failures ELSE 0 END,
         bulk = m.bulk AND r.outcome <> 'retry',
         provider = coalesce(r.provider, m.provider),
         provider_ref = CASE WHEN r.outcome = 'sent' THEN r.pmid ELSE m.provider_ref END,
         submitted_at = coalesce(to_timestamp(r.submitted), m.submitted_at),
         sent_at = CASE WHEN r.outcome = 'sent' THEN now() ELSE m.sent_at END,
         error = CASE WHEN r.outcome = 'sent' THEN NULL ELSE r.error END,
         not_before = CASE WHEN r.outcome = 'retry' THEN now() + make_interval(secs => r.retry_after) END,
         claimed_until = NULL,
         price = CASE WHEN r.outcome = 'failed' THEN 0 ELSE m.price END,
         updated_at = now()
       FROM r
       WHERE m.account_id = r.account_id AND m.id = r.id
         AND CASE WHEN r.ranged THEN m.bulk AND m.status = 'queued' AND m.attempts = r.attempt - 1
                  ELSE m.status = 'sending' AND m.attempts = r.attempt END
       -- What the CTEs below read, not m.*: each row is kept for them until the statement ends.
       RETURNING m.account_id, m.id, m.job_id, m.status, m.error, m.price, m.provider, m.provider_ref,
                 m.provider_message_id, r.old_price, r.lookup
     ), fin AS (
       SELECT account_id, job_id, count(*) AS n, count(*) FILTER (WHERE status = 'failed') AS nf,
              coalesce(sum(old_price) FILTER (WHERE status = 'failed'), 0) AS amount
       FROM upd WHERE status IN ('sent', 'failed') GROUP BY account_id, job_id
     ), job AS (
       ${JOB_SETTLE}
     ), acct AS (
       ${REFUND_FAILED}
     ), refs AS (
       INSERT INTO provider_refs (provider, ref, account_id, message_id)
       SELECT m.provider, m.provider_ref, m.account_id, m.id FROM upd m WHERE m.status = 'sent' AND m.lookup
       ON CONFLICT DO NOTHING
     ), ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, CASE WHEN m.status = 'sent' THEN 'message-sent' ELSE 'message-status' END,
              ${MESSAGE_EVENT_REF}
       FROM upd m WHERE m.status IN ('sent', 'failed')
         AND ${heardOnce('upd', 'm.account_id', "CASE WHEN m.status = 'sent' THEN 'message-sent' ELSE 'message-status' END")}
       ORDER BY m.id
     ), gone AS (
       DELETE FROM dispatch_inflight WHERE id = ANY($16::bigint[])
     )
     SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent,
            count(*) FILTER (WHERE status = 'queued')::int AS retried,
            count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM upd`,
    values: [...submissionColumns(outcomes), plainArray(drop)],
  });
  return rows[0];
}

/** The fifteen column arrays of recordSubmissions, built in one pass as array literals. */
function submissionColumns(outcomes: SubmissionOutcome[]): string[] {
  const n = outcomes.length;
  const cols = Array.from({ length: 15 }, () => new Array<string | number | boolean | null>(n));
  for (let i = 0; i < n; i++) {
    const o = outcomes[i];
    cols[0][i] = o.accountId;
    cols[1][i] = o.id;
    cols[2][i] = o.attempt;
    cols[3][i] = o.outcome;
    cols[4][i] = o.provider;
    cols[5][i] = o.providerMessageId;
    cols[6][i] = o.error ? JSON.stringify(o.error) : null;
    cols[7][i] = o.retryAfterSeconds;
    cols[8][i] = o.price;
    cols[9][i] = o.ranged;
    cols[10][i] = o.submittedSecond;
    cols[11][i] = o.refLookup;
    cols[12][i] = o.handed;
    cols[13][i] = o.owed ? o.owed.since.toISOString() : null;
    cols[14][i] = o.owed ? o.owed.failures : 0;
  }
  // Carrier ids and errors come from outside: quoted. The rest are ids, numbers and fixed words.
  return cols.map((c, i) => (i === 5 || i === 6 ? textArray(c as (string | null)[]) : plainArray(c)));
}

/**
 * Fails locked candidates that must not be sent (the contact opted out or was blocked after the
 * message was queued; the number is gone), refunding their price and emitting `message-status`.
 */
export async function failCandidates(
  db: Queryable,
  failures: { accountId: string; id: string; error: { code: string; description: string } }[],
): Promise<void> {
  if (failures.length === 0) return;
  await db.query(
    `WITH r AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[]) AS r(account_id, id, error)
     ), upd AS (
       UPDATE messages m SET status = 'failed', error = r.error, price = 0, claimed_until = NULL, updated_at = now()
       FROM r JOIN messages o ON o.account_id = r.account_id AND o.id = r.id
       WHERE m.account_id = r.account_id AND m.id = r.id AND m.status IN ('queued', 'sending')
       RETURNING m.*, o.price AS old_price
     ), fin AS (
       SELECT account_id, job_id, count(*) AS n, count(*) AS nf, sum(old_price) AS amount
       FROM upd GROUP BY account_id, job_id
     ), job AS (
       ${JOB_SETTLE}
     ), acct AS (
       ${REFUND_FAILED}
     )
     INSERT INTO events (id, account_id, type, data)
     SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA} FROM upd m
     WHERE ${heardOnce('upd', 'm.account_id', "'message-status'")} ORDER BY m.id`,
    [
      failures.map((f) => f.accountId),
      failures.map((f) => f.id),
      failures.map((f) => JSON.stringify(f.error)),
    ],
  );
}
