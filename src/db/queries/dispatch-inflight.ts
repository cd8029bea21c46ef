/**
 * SQL of the groups handed to a provider and not yet recorded (migration 0200): one row per group,
 * written before the group goes out, deleted with the group's last recorded outcome.
 */
import { plainArray } from '../arrays.ts';
import type { Queryable } from '../client.ts';
import type { RangeRef } from './dispatch-ranges.ts';

/** A group about to be handed to a provider. */
export interface InflightGroup {
  provider: string;
  ranged: boolean;
  /** The range of a ranged group: its lease is extended with the mark. */
  range?: RangeRef;
  accountIds: string[];
  ids: string[];
  attempts: number[];
}

/**
 * Records that a group is about to be submitted (its own commit: it must be durable before the
 * first message leaves), and renews the claim of its messages: its range's lease, or each one-off
 * message's. Writes nothing and answers undefined when the claim is no longer this batch's (the
 * range was taken over under another owner token; a one-off message was reclaimed under another
 * attempt): the group must not be sent. Answers the row id.
 */
export async function markInflight(
  db: Queryable,
  g: InflightGroup,
  leaseSeconds: number,
): Promise<string | undefined> {
  // Two statements, one per kind of group: each keeps one generic plan (a statement taking the
  // kind as a parameter was planned anew at every call, its custom plan dropping the other branch).
  const { rows } = g.ranged
    ? await db.query<{ id: string }>({
        name: 'dispatch-mark-inflight-range',
        text: `WITH r AS (
                 UPDATE dispatch_ranges SET claimed_until = now() + make_interval(secs => $1)
                 WHERE account_id = $3 AND job_id = $4 AND lo = $5 AND owner = $9
                 RETURNING 1
               )
               INSERT INTO dispatch_inflight (claimed_until, provider, ranged, range_account_id, range_job_id, range_lo,
                                              account_ids, ids, attempts)
               SELECT now() + make_interval(secs => $1), $2, true, $3, $4, $5, $6::uuid[], $7::uuid[], $8::int[]
               WHERE EXISTS (SELECT 1 FROM r)
               RETURNING id::text`,
        values: [
          leaseSeconds,
          g.provider,
          g.range?.accountId ?? null,
          g.range?.jobId ?? null,
          g.range?.lo ?? null,
          plainArray(g.accountIds),
          plainArray(g.ids),
          plainArray(g.attempts),
          g.range?.owner ?? null,
        ],
      })
    : await db.query<{ id: string }>({
        name: 'dispatch-mark-inflight-singles',
        text: `WITH s AS (
                 UPDATE messages m SET claimed_until = now() + make_interval(secs => $1)
                 FROM unnest($3::uuid[], $4::uuid[], $5::int[]) AS k(account_id, id, attempt)
                 WHERE m.account_id = k.account_id AND m.id = k.id AND m.status = 'sending'
                   AND m.attempts = k.attempt
                 RETURNING 1
               )
               INSERT INTO dispatch_inflight (claimed_until, provider, ranged, account_ids, ids, attempts)
               SELECT now() + make_interval(secs => $1), $2, false, $3::uuid[], $4::uuid[], $5::int[]
               WHERE (SELECT count(*) FROM s) = cardinality($4::uuid[])
               RETURNING id::text`,
        values: [
          leaseSeconds,
          g.provider,
          plainArray(g.accountIds),
          plainArray(g.ids),
          plainArray(g.attempts),
        ],
      });
  return rows[0]?.id;
}

/** Deletes groups whose every outcome is recorded (in the transaction that records the last ones). */
export async function dropInflight(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query({
    name: 'dispatch-drop-inflight',
    text: 'DELETE FROM dispatch_inflight WHERE id = ANY($1::bigint[])',
    values: [plainArray(ids)],
  });
}

/** A leftover group whose worker died (its lease passed), locked for reconciliation. */
export interface ExpiredInflight {
  id: string;
  started_at: Date;
  provider: string;
  ranged: boolean;
  /** Rounds of lookups of its messages that failed so far (migration 0367). */
  lookup_failures: number;
}

/** Whether any group's lease passed (a cheap test before reconciling, every dispatch round). */
export async function anyExpiredInflight(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ due: boolean }>({
    name: 'dispatch-inflight-due',
    text: 'SELECT EXISTS (SELECT 1 FROM dispatch_inflight WHERE claimed_until < now()) AS due',
  });
  return rows[0].due;
}

/**
 * Locks one group whose lease passed (or whose lookup backoff did: deferInflight), of a provider
 * this process has (a worker without it could not ask it), skipping groups another worker is
 * reconciling.
 */
export async function lockExpiredInflight(
  db: Queryable,
  providers: string[],
): Promise<ExpiredInflight | undefined> {
  const { rows } = await db.query<ExpiredInflight>(
    `SELECT id::text, started_at, provider, ranged, lookup_failures FROM dispatch_inflight
     WHERE claimed_until < now() AND provider = ANY($1::text[])
     ORDER BY claimed_until LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [providers],
  );
  return rows[0];
}

/**
 * A leftover group whose lookups could not all be made: it keeps only the messages still of
 * unknown fate (those found were recorded, those not found are released to be sent), counts the
 * failed round, and is not taken again, by any worker, before `delaySeconds` have passed.
 */
export async function deferInflight(
  db: Queryable,
  groupId: string,
  unknown: { accountId: string; id: string; attempt: number }[],
  failures: number,
  delaySeconds: number,
): Promise<void> {
  await db.query({
    name: 'dispatch-defer-inflight',
    text: `UPDATE dispatch_inflight SET account_ids = $2::uuid[], ids = $3::uuid[], attempts = $4::int[],
             lookup_failures = $5, claimed_until = now() + make_interval(secs => $6)
           WHERE id = $1`,
    values: [
      groupId,
      plainArray(unknown.map((m) => m.accountId)),
      plainArray(unknown.map((m) => m.id)),
      plainArray(unknown.map((m) => m.attempt)),
      failures,
      delaySeconds,
    ],
  });
}

/** A message of a leftover group whose outcome was never recorded: its fate at the carrier is unknown. */
export interface UncertainMessage {
  account_id: string;
  id: string;
  /** The attempt that was handed over. */
  attempt: number;
  from_number: string;
  to_number: string;
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  media: { url: string }[] | null;
  price: number;
}

/**
 * The messages of a group still in the claim that handed them over (the condition under which
 * recordSubmissions would record them): a ranged one still `queued` with the attempt not counted,
 * a one-off still `sending` under the same attempt.
 */
export async function uncertainMessages(db: Queryable, groupId: string): Promise<UncertainMessage[]> {
  const { rows } = await db.query<UncertainMessage>(
    `SELECT m.account_id, m.id, g.attempt, m.from_number, m.to_number, m.body, m.encoding, m.segments,
            nullif(m.media, '[]'::jsonb) AS media, m.price::float8 AS price
     FROM dispatch_inflight f
     CROSS JOIN LATERAL unnest(f.account_ids, f.ids, f.attempts) AS g(account_id, id, attempt)
     JOIN messages m ON m.account_id = g.account_id AND m.id = g.id
     WHERE f.id = $1
       AND CASE WHEN f.ranged THEN m.bulk AND m.status = 'queued' AND m.attempts = g.attempt - 1
                ELSE m.status = 'sending' AND m.attempts = g.attempt END
     ORDER BY m.id`,
    [groupId],
  );
  return rows;
}

/**
 * Takes a carrier id found by a lookup for this message: records it in provider_refs unless it is
 * another message's. Answers whether it is this message's now (taken here, or already its own).
 * The primary key (provider, ref) makes the taking atomic: of two workers settling identical
 * messages at once, the second waits for the first's commit and finds the id taken.
 */
export async function claimProviderRef(
  db: Queryable,
  provider: string,
  ref: string,
  message: { accountId: string; id: string },
): Promise<boolean> {
  const { rows } = await db.query<{ ours: boolean }>({
    name: 'dispatch-claim-provider-ref',
    text: `WITH ins AS (
             INSERT INTO provider_refs (provider, ref, account_id, message_id) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING RETURNING 1
           )
           SELECT EXISTS (SELECT 1 FROM ins)
               OR EXISTS (SELECT 1 FROM provider_refs
                          WHERE provider = $1 AND ref = $2 AND account_id = $3 AND message_id = $4) AS ours`,
    values: [provider, ref, message.accountId, message.id],
  });
  return rows[0].ours;
}

/**
 * Extends the lease of a live batch: its groups in flight, its range, and its one-off claims still
 * being sent (a message recorded meanwhile is no longer `sending` under the attempt and is left alone).
 */
export async function renewBatch(
  db: Queryable,
  b: { range?: RangeRef; single: { accountId: string; id: string; attempt: number }[]; groups: string[] },
  leaseSeconds: number,
): Promise<void> {
  await db.query({
    name: 'dispatch-renew-batch',
    text: `WITH g AS (
             UPDATE dispatch_inflight SET claimed_until = greatest(claimed_until, now() + make_interval(secs => $1))
             WHERE id = ANY($2::bigint[])
           ), r AS (
             UPDATE dispatch_ranges SET claimed_until = greatest(claimed_until, now() + make_interval(secs => $1))
             WHERE account_id = $3 AND job_id = $4 AND lo = $5 AND owner = $9
           )
           UPDATE messages m SET claimed_until = now() + make_interval(secs => $1)
           FROM unnest($6::uuid[], $7::uuid[], $8::int[]) AS k(account_id, id, attempt)
           WHERE m.account_id = k.account_id AND m.id = k.id AND m.status = 'sending' AND m.attempts = k.attempt`,
    values: [
      leaseSeconds,
      plainArray(b.groups),
      b.range?.accountId ?? null,
      b.range?.jobId ?? null,
      b.range?.lo ?? null,
      plainArray(b.single.map((m) => m.accountId)),
      plainArray(b.single.map((m) => m.id)),
      plainArray(b.single.map((m) => m.attempt)),
      b.range?.owner ?? null,
    ],
  });
}
