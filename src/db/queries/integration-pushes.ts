/** The pushes Sparrow owes a CRM (issue 29): collected from the account's events, leased, settled. */
import type { Queryable } from '../client.ts';
import type { IntegrationRow } from './integrations.ts';

/**
 * Turns the account's events after the connection's cursor (opt-outs, opt-ins, messages sent and
 * received) that concern a contact carrying the CRM's id into pushes, and moves the cursor past
 * them, in one statement: an event becomes at most one push (the primary key). Events younger than
 * 5 s are left for the next round (a transaction committing late with an older id is not skipped).
 */
export async function collectPushes(db: Queryable, i: IntegrationRow, batch: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH ev AS (
       SELECT e.id, e.type, e.data, e.created_at FROM events e
        WHERE e.account_id = $1 AND e.id > coalesce($3::uuid, '00000000-0000-0000-0000-000000000000')
          AND e.id < sparrow_uuidv7_floor(now() - interval '5 seconds')
          AND e.type IN ('contact-opt-out', 'contact-opt-in', 'message-sent', 'message-received')
        ORDER BY e.id LIMIT $7),
     rows AS (
       SELECT ev.id AS event_id,
              CASE ev.type WHEN 'contact-opt-out' THEN 'opt-out' WHEN 'contact-opt-in' THEN 'opt-in' ELSE 'message' END AS kind,
              coalesce(c1.integrations, c2.integrations)->$4::text AS crm,
              CASE WHEN ev.type LIKE 'message-%' THEN jsonb_build_object(
                  'text', m.body, 'direction', CASE WHEN m.outgoing THEN 'outbound' ELSE 'inbound' END, 'from', m.from_number, 'to', m.to_number,
                  'at', to_char(ev.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                ELSE jsonb_build_object('at', to_char(ev.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END AS payload
         FROM ev
         LEFT JOIN contacts c1 ON ev.type LIKE 'contact-%' AND c1.account_id = $1 AND c1.id = (ev.data->'contact'->>'id')::uuid
         LEFT JOIN messages m ON ev.type LIKE 'message-%' AND m.account_id = $1 AND m.id = (ev.data->'message'->>'id')::uuid
         LEFT JOIN contacts c2 ON c2.account_id = $1 AND c2.id = m.contact_id),
     ins AS (
       INSERT INTO integration_pushes (account_id, integration_id, event_id, kind, crm_id, payload)
       SELECT $1, $2, event_id, kind, (crm->>'id')::bigint, payload FROM rows
        WHERE jsonb_typeof(crm->'id') = 'number'
          AND (kind = 'message' AND $5::boolean OR kind <> 'message' AND $6::boolean)
       ON CONFLICT DO NOTHING RETURNING 1),
     cur AS (
       -- Past the last event read, or (a batch not full) up to the 5 s floor: the next scan starts
       -- there even when the account had no event, so it never re-reads a growing range.
       UPDATE integrations SET events_cursor = CASE WHEN (SELECT count(*) FROM ev) >= $7
                THEN (SELECT id FROM ev ORDER BY id DESC LIMIT 1)
                ELSE greatest(events_cursor, sparrow_uuidv7_floor(now() - interval '5 seconds')) END,
              push_due_at = CASE WHEN EXISTS (SELECT 1 FROM ins) THEN now() ELSE push_due_at END
        WHERE account_id = $1 AND id = $2)
     SELECT (SELECT count(*)::int FROM ev) AS n`,
    [
      i.account_id,
      i.id,
      i.events_cursor,
      i.type,
      i.settings.logMessages !== false,
      i.settings.writeOptOuts !== false,
      batch,
    ],
  );
  return rows[0].n;
}

export interface PushRow {
  event_id: string;
  kind: 'opt-out' | 'opt-in' | 'message';
  crm_id: string;
  payload: { at: string; text?: string; direction?: 'inbound' | 'outbound'; from?: string; to?: string };
  status: 'pending' | 'sending';
  attempts: number;
}

/**
 * Takes up to `limit` due pushes of a connection and marks them 'sending' under a lease. Rows that
 * were already 'sending' (a worker died with the outcome unknown) come back as such: the caller
 * asks the CRM whether they were written before sending them again.
 */
export async function claimPushes(db: Queryable, i: IntegrationRow, limit: number, leaseSeconds: number) {
  const { rows } = await db.query<PushRow>(
    `WITH due AS (
       SELECT event_id, status AS was FROM integration_pushes
        WHERE integration_id = $1 AND status IN ('pending', 'sending') AND next_at <= now()
          AND (lease_until IS NULL OR lease_until < now())
        ORDER BY event_id LIMIT $2 FOR UPDATE SKIP LOCKED)
     UPDATE integration_pushes p SET status = 'sending', attempts = p.attempts + 1,
            lease_until = now() + make_interval(secs => $3)
       FROM due WHERE p.integration_id = $1 AND p.event_id = due.event_id
     RETURNING p.event_id, p.kind, p.crm_id::text, p.payload, due.was AS status, p.attempts`,
    [i.id, limit, leaseSeconds],
  );
  return rows;
}

export async function markPushesDone(db: Queryable, integrationId: string, eventIds: string[]) {
  if (eventIds.length === 0) return;
  await db.query(
    `UPDATE integration_pushes SET status = 'done', done_at = now(), lease_until = NULL, error = NULL
      WHERE integration_id = $1 AND event_id = ANY ($2::uuid[])`,
    [integrationId, eventIds],
  );
}

/** Pushes that failed: retried after `retryInMs`, or given up ('failed') past `maxAttempts`. */
export async function markPushesFailed(
  db: Queryable,
  integrationId: string,
  eventIds: string[],
  error: string,
  retryInMs: number,
  maxAttempts: number,
) {
  if (eventIds.length === 0) return;
  await db.query(
    `UPDATE integration_pushes SET lease_until = NULL, error = $3,
            status = CASE WHEN attempts >= $5 THEN 'failed' ELSE 'pending' END,
            next_at = now() + make_interval(secs => $4::double precision / 1000)
      WHERE integration_id = $1 AND event_id = ANY ($2::uuid[])`,
    [integrationId, eventIds, error.slice(0, 500), retryInMs, maxAttempts],
  );
}

/** How often a connection's new events are looked for, in seconds (with nothing else due). */
export const EVENT_SCAN_SECONDS = 5;

/**
 * The next time the connection is due for Sparrow → CRM work, written as its push_due_at: its
 * earliest due push, or the next look for new events (EVENT_SCAN_SECONDS), whichever comes first.
 */
export async function schedulePushes(db: Queryable, accountId: string, id: string) {
  await db.query(
    `UPDATE integrations SET push_due_at = least(now() + make_interval(secs => $3), (
       SELECT least(min(next_at), min(lease_until)) FROM integration_pushes
        WHERE integration_id = $2 AND status IN ('pending', 'sending')))
      WHERE account_id = $1 AND id = $2`,
    [accountId, id, EVENT_SCAN_SECONDS],
  );
}

/** Counts of a connection's pushes by status. */
export async function pushCounts(db: Queryable, integrationId: string) {
  const { rows } = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM integration_pushes WHERE integration_id = $1 GROUP BY status`,
    [integrationId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
}
