import type { Queryable } from '../client.ts';
import { lockDueSql, type QueueSpec } from './claim.ts';

/** One recorded attempt of a delivery. */
export interface AttemptEntry {
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** A delivery as stored. */
export interface DeliveryRow {
  account_id: string;
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  attempt_log: AttemptEntry[];
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/** A claimed delivery with what is needed to send it. */
export interface ClaimedDelivery {
  account_id: string;
  id: string;
  webhook_id: string;
  attempts: number;
  destination: string;
  secret: string;
  previous_secret: string | null;
  event_id: string;
  event_type: string;
  event_data: unknown;
  /** The text of the message a message-sent / message-status event names (its stored data has none). */
  message_text: string | null;
  event_created_at: Date;
}

/** Committed events waiting for their fan-out (fed by a trigger on `events`), locked while fanned out. */
const EVENT_QUEUE: QueueSpec = {
  table: 'webhook_event_queue',
  key: ['event_id'],
  due: 'true',
  order: 'q.event_id',
};

/**
 * Deliveries due for an attempt. The lease is `next_attempt_at` itself (a claim pushes it out by
 * the lease), the claim token guards the recording of the outcome (recordAttempts).
 */
export const DELIVERY_QUEUE: QueueSpec = {
  table: 'webhook_deliveries',
  key: ['account_id', 'id'],
  due: `q.status = 'pending' AND q.next_attempt_at <= now()`,
  order: 'q.next_attempt_at',
  lease: { until: 'next_attempt_at', token: 'claim_token', inDue: true },
  attempts: 'attempts',
};

/**
 * Fans queued events out to deliveries, set-based: claims up to `limit` queued events (FOR UPDATE
 * SKIP LOCKED, so several workers share the queue), removes them and inserts one delivery per
 * matching active subscription, all in one statement. Answers the counts.
 */
export async function fanOutQueuedEvents(
  db: Queryable,
  limit: number,
): Promise<{ events: number; deliveries: number }> {
  // Named: polled many times a second under load, its plan is the same every time.
  const { rows } = await db.query<{ events: number; deliveries: number }>({
    name: 'webhook-fan-out',
    text: `WITH q AS (
       DELETE FROM webhook_event_queue WHERE event_id IN (${lockDueSql(EVENT_QUEUE, { limit: '$1' })})
       RETURNING event_id
     ), ins AS (
       INSERT INTO webhook_deliveries (account_id, id, webhook_id, event_id, event_type, next_attempt_at)
       SELECT w.account_id, sparrow_uuidv7(), w.id, e.id, e.type, now()
         FROM q JOIN events e ON e.id = q.event_id
         JOIN webhooks w ON w.account_id = e.account_id AND w.status = 'active' AND e.type = ANY (w.event_types)
        ORDER BY e.id
       ON CONFLICT DO NOTHING
       RETURNING 1
     )
     SELECT (SELECT count(*)::int FROM q) AS events, (SELECT count(*)::int FROM ins) AS deliveries`,
    values: [limit],
  });
  return rows[0];
}

/**
 * Claims up to `limit` due deliveries of active subscriptions (FOR UPDATE SKIP LOCKED on the chosen ones), so that no
 * subscription has more than `perWebhook` in flight counting the `busy` ones this process holds.
 * The claim pushes next_attempt_at out by `leaseMs` (so a killed worker's claims come due again)
 * and stamps `token`, without which a result is not recorded.
 */
export async function claimDueDeliveries(
  db: Queryable,
  o: {
    limit: number;
    perWebhook: number;
    busy: Map<string, number>;
    leaseMs: number;
    token: string;
    /** At most this many held per account, counting `busyAccounts` (none: no account cap). */
    perAccount?: number;
    busyAccounts?: Map<string, number>;
  },
): Promise<ClaimedDelivery[]> {
  // Named: its plan (2 ms to make) is the same at every poll.
  const { rows } = await db.query<ClaimedDelivery>({
    name: 'webhook-claim-due',
    text: `WITH busy AS (
       SELECT * FROM unnest($3::uuid[], $6::int[]) AS b(webhook_id, n)
     ), busy_accounts AS (
       SELECT * FROM unnest($7::uuid[], $8::int[]) AS b(account_id, n)
     ), per_hook AS (
       -- Each active subscription's earliest due deliveries, at most its free share, from its own
       -- index range (only the rows taken are read), numbered within their account.
       SELECT d.account_id, d.id, d.next_attempt_at,
              row_number() OVER (PARTITION BY w.account_id ORDER BY d.next_attempt_at) AS nth
         FROM webhooks w
       LEFT JOIN busy b ON b.webhook_id = w.id
       CROSS JOIN LATERAL (
         SELECT d.account_id, d.id, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= now()
          ORDER BY d.next_attempt_at LIMIT greatest($2 - coalesce(b.n, 0), 0)
       ) d
       WHERE w.status = 'active'
     ), chosen AS (
       -- At most each account's free share (one account's backlog leaves room for the others'),
       -- then the earliest of all.
       SELECT p.account_id, p.id FROM per_hook p
       LEFT JOIN busy_accounts ba ON ba.account_id = p.account_id
       WHERE p.nth <= greatest($9::int - coalesce(ba.n, 0), 0)
       ORDER BY p.next_attempt_at LIMIT $1
     ), locked AS (
       -- Only the chosen rows are locked. A row another worker holds is skipped; one it claimed
       -- meanwhile fails the re-check on its newest version.
       ${lockDueSql(DELIVERY_QUEUE, { join: 'JOIN chosen c ON c.account_id = q.account_id AND c.id = q.id', order: '' })}
     )
     UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1, claim_token = $5, next_attempt_at = now() + $4 * interval '1 millisecond'
       FROM locked c, webhooks w, events e
      WHERE d.account_id = c.account_id AND d.id = c.id
        AND w.account_id = d.account_id AND w.id = d.webhook_id AND w.status = 'active'
        AND e.id = d.event_id
     RETURNING d.account_id, d.id, d.webhook_id, d.attempts, w.destination, w.secret,
               CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret,
               e.id AS event_id, e.type AS event_type, sparrow_event_payload(e) AS event_data, e.created_at AS event_created_at,
               CASE WHEN e.type IN ('message-sent', 'message-status')
                     AND e.data -> 'message' ->> 'id' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
                 (SELECT mt.body FROM messages mt
                   WHERE mt.account_id = e.account_id AND mt.id = (e.data -> 'message' ->> 'id')::uuid)
               END AS message_text`,
    values: [
      o.limit,
      o.perWebhook,
      [...o.busy.keys()],
      o.leaseMs,
      o.token,
      [...o.busy.values()],
      [...(o.busyAccounts?.keys() ?? [])],
      [...(o.busyAccounts?.values() ?? [])],
      o.perAccount ?? 2_147_483_647,
    ],
  });
  return rows;
}

/** The outcome of one attempt, to record. */
export interface AttemptOutcome {
  accountId: string;
  id: string;
  token: string;
  /** pending (retry at nextAttemptInMs), succeeded or failed (gave up). */
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptInMs: number | null;
  entry: AttemptEntry;
}

/**
 * Records attempt outcomes in one statement. A row whose claim token changed (its lease ran out
 * and another worker claimed it, or it was replayed) is left alone. Answers the ids recorded.
 */
export async function recordAttempts(db: Queryable, outcomes: AttemptOutcome[]): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `UPDATE webhook_deliveries d SET
        status = r.status,
        next_attempt_at = CASE WHEN r.status = 'pending' THEN now() + r.delay * interval '1 millisecond' ELSE d.next_attempt_at END,
        claim_token = NULL,
        attempt_log = d.attempt_log || jsonb_build_array(r.entry),
        last_status_code = (r.entry ->> 'statusCode')::int,
        last_error = r.entry ->> 'error',
        completed_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::float8[], $6::jsonb[])
            AS r(account_id, id, token, status, delay, entry)
      WHERE d.account_id = r.account_id AND d.id = r.id AND d.claim_token = r.token
      RETURNING d.id`,
    [
      outcomes.map((o) => o.accountId),
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.token),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.nextAttemptInMs ?? 0),
      outcomes.map((o) => JSON.stringify(o.entry)),
    ],
  );
  return new Set(rows.map((r) => r.id));
}

/** Gives up the pending deliveries of subscriptions that were just disabled. */
export async function failPendingDeliveries(
  db: Queryable,
  webhookIds: string[],
  reason: string,
): Promise<void> {
  if (webhookIds.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries SET status = 'failed', claim_token = NULL, last_error = $2, completed_at = now()
      WHERE webhook_id = ANY ($1::uuid[]) AND status = 'pending'`,
    [webhookIds, reason],
  );
}

export async function listDeliveries(
  db: Queryable,
  accountId: string,
  webhookId: string,
  offset: number,
  limit: number,
) {
  const [items, count] = await Promise.all([
    db.query<DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE account_id = $1 AND webhook_id = $2
        ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT $4`,
      [accountId, webhookId, offset, limit],
    ),
    db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1 AND webhook_id = $2',
      [accountId, webhookId],
    ),
  ]);
  return { items: items.rows, totalCount: count.rows[0].n };
}

/** Makes a delivery due now with a fresh retry cycle (its attempt log is kept). */
export async function replayDelivery(
  db: Queryable,
  accountId: string,
  webhookId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = now(), claim_token = NULL, completed_at = NULL
      WHERE account_id = $1 AND webhook_id = $2 AND id = $3 RETURNING *`,
    [accountId, webhookId, id],
  );
  return rows[0];
}

/** Hands back claimed deliveries that were never attempted: due now, as if never claimed. */
export async function releaseClaims(
  db: Queryable,
  claims: { accountId: string; id: string; token: string }[],
): Promise<void> {
  if (claims.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries d SET next_attempt_at = now(), claim_token = NULL, attempts = d.attempts - 1
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS r(account_id, id, token)
      WHERE d.account_id = r.account_id AND d.id = r.id AND d.claim_token = r.token`,
    [claims.map((c) => c.accountId), claims.map((c) => c.id), claims.map((c) => c.token)],
  );
}
