/**
 * CRM integrations (issue 29): connections, the sync's lease and progress, the contacts a sync
 * writes (with their events, set-based), and the pushes Sparrow owes a CRM.
 */
import type { Queryable } from '../client.ts';
import { contactJsonSql } from './contacts-merge.ts';
import { eventHeard } from './events.ts';

export interface IntegrationRow {
  account_id: string;
  id: string;
  type: 'hubspot' | 'pipedrive' | 'activecampaign';
  status: 'active' | 'error' | 'disconnected';
  credentials: string;
  api_url: string | null;
  settings: IntegrationSettings;
  sync_state: SyncState;
  counts: Record<string, number>;
  last_synced: Date | null;
  last_error: { code: string; description: string; at: string } | null;
  sync_due_at: Date | null;
  lease_until: Date | null;
  events_cursor: string | null;
  push_due_at: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** What a connection syncs. */
export interface IntegrationSettings {
  syncContacts?: boolean;
  writeOptOuts?: boolean;
  logMessages?: boolean;
  /** Minutes between incremental syncs. */
  intervalMinutes?: number;
  /** CRM lists kept in Sparrow lists. */
  lists?: { crmListId: string; listId: string }[];
}

/** Where a sync run is: its phase, the page cursor, the list it is on, and its running counts. */
export interface SyncState {
  /** 'full' until the first full sync finished; then 'incremental'. */
  mode?: 'full' | 'incremental';
  /** When the run in progress started (its end becomes the next run's `since`). */
  runStartedAt?: string;
  /** The lower bound of the incremental run in progress. */
  since?: string;
  /** Pages this run has read. */
  pages?: number;
  /** This incremental run reads everyone (the CRM refused the changed-since query). */
  fullRun?: boolean;
  /** The next page of the current phase. */
  cursor?: string;
  /** Which phase of the run: people, then each list (by index). */
  phase?: 'people' | 'lists';
  listIndex?: number;
  /** Counts of the run in progress. */
  run?: Record<string, number>;
  /** Attempts that hit a failure in a row (backoff). */
  failures?: number;
}

export async function insertIntegration(
  db: Queryable,
  accountId: string,
  i: {
    id: string;
    type: string;
    credentials: string;
    apiUrl: string | null;
    settings: IntegrationSettings;
    by: object;
  },
): Promise<IntegrationRow | undefined> {
  const { rows } = await db.query<IntegrationRow>(
    `INSERT INTO integrations (account_id, id, type, credentials, api_url, settings, sync_state, events_cursor,
       push_due_at, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, '{"mode":"full"}', sparrow_uuidv7(), now(), $7, $7)
     ON CONFLICT (account_id, type) WHERE status <> 'disconnected' DO NOTHING
     RETURNING *`,
    [accountId, i.id, i.type, i.credentials, i.apiUrl, i.settings, i.by],
  );
  return rows[0];
}

export async function findIntegration(db: Queryable, accountId: string, id: string) {
  const { rows } = await db.query<IntegrationRow>(
    `SELECT * FROM integrations WHERE account_id = $1 AND id = $2 AND status <> 'disconnected'`,
    [accountId, id],
  );
  return rows[0];
}

/** A live connection by id alone (a CRM's webhook names it; the signature then proves who calls). */
export async function findIntegrationAnyAccount(db: Queryable, id: string) {
  const { rows } = await db.query<IntegrationRow>(
    `SELECT * FROM integrations WHERE id = $1 AND status <> 'disconnected'`,
    [id],
  );
  return rows[0];
}

export async function listIntegrations(db: Queryable, accountId: string, offset: number, limit: number) {
  const [items, count] = await Promise.all([
    db.query<IntegrationRow>(
      `SELECT * FROM integrations WHERE account_id = $1 AND status <> 'disconnected'
       ORDER BY created_at, id OFFSET $2 LIMIT $3`,
      [accountId, offset, limit],
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM integrations WHERE account_id = $1 AND status <> 'disconnected'`,
      [accountId],
    ),
  ]);
  return { items: items.rows, totalCount: count.rows[0].n };
}

/** New settings and/or credentials; a new credential clears the error and makes the sync due now. */
export async function updateIntegration(
  db: Queryable,
  accountId: string,
  id: string,
  c: { settings?: IntegrationSettings; credentials?: string; apiUrl?: string | null; by: object },
) {
  const { rows } = await db.query<IntegrationRow>(
    `UPDATE integrations SET
       settings = coalesce($3, settings),
       credentials = coalesce($4, credentials),
       api_url = CASE WHEN $4::text IS NULL THEN api_url ELSE $5 END,
       status = CASE WHEN $4::text IS NULL THEN status ELSE 'active' END,
       last_error = CASE WHEN $4::text IS NULL THEN last_error ELSE NULL END,
       sync_due_at = now(),
       updated_at = now(), updated_by = $6
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected' RETURNING *`,
    [accountId, id, c.settings ?? null, c.credentials ?? null, c.apiUrl ?? null, c.by],
  );
  return rows[0];
}

/** Stops syncing: the connection is marked disconnected and its credential dropped. */
export async function disconnectIntegration(db: Queryable, accountId: string, id: string, by: object) {
  const { rows } = await db.query<IntegrationRow>(
    `UPDATE integrations SET status = 'disconnected', credentials = '', sync_due_at = NULL, lease_until = NULL,
       updated_at = now(), updated_by = $3
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected' RETURNING *`,
    [accountId, id, by],
  );
  return rows[0];
}

/** Removes the CRM's id field from every contact of the account (a disconnect that asks for it). */
export async function clearCrmIds(db: Queryable, accountId: string, type: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE contacts SET integrations = integrations - $2::text WHERE account_id = $1 AND integrations ? $2::text`,
    [accountId, type],
  );
  return rowCount ?? 0;
}

export async function requestSync(db: Queryable, accountId: string, id: string) {
  const { rows } = await db.query<IntegrationRow>(
    `UPDATE integrations SET sync_due_at = now()
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected' RETURNING *`,
    [accountId, id],
  );
  return rows[0];
}

/**
 * Leases one connection whose sync is due (or whose pushes are) and that no live worker holds.
 * A worker killed mid-run leaves its lease to run out; the next one resumes from sync_state.
 */
export async function claimIntegration(db: Queryable, leaseSeconds: number) {
  const { rows } = await db.query<IntegrationRow>(
    `UPDATE integrations SET lease_until = now() + make_interval(secs => $1)
     WHERE (account_id, id) = (
       SELECT account_id, id FROM integrations
        WHERE status = 'active' AND (lease_until IS NULL OR lease_until < now())
          AND (sync_due_at <= now() OR push_due_at <= now())
        ORDER BY least(sync_due_at, push_due_at) LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [leaseSeconds],
  );
  return rows[0];
}

/** Keeps the lease and the place reached (after each page), so a successor resumes from here. */
export async function saveProgress(
  db: Queryable,
  accountId: string,
  id: string,
  state: SyncState,
  leaseSeconds: number,
) {
  await db.query(
    `UPDATE integrations SET sync_state = $3, lease_until = now() + make_interval(secs => $4)
     WHERE account_id = $1 AND id = $2`,
    [accountId, id, state, leaseSeconds],
  );
}

/** A run finished: counts and lastSynced recorded, the next one due after `nextInMs`. */
export async function finishSync(
  db: Queryable,
  accountId: string,
  id: string,
  state: SyncState,
  counts: Record<string, number>,
  nextInMs: number,
) {
  await db.query(
    `UPDATE integrations SET sync_state = $3, counts = $4, last_synced = now(), last_error = NULL,
       sync_due_at = now() + make_interval(secs => $5::double precision / 1000)
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected'`,
    [accountId, id, state, counts, nextInMs],
  );
}

/** A run stopped on a failure: recorded, retried after `retryInMs`; `revoked` marks the connection in error (no retry until changed). */
export async function failSync(
  db: Queryable,
  accountId: string,
  id: string,
  state: SyncState,
  error: { code: string; description: string },
  retryInMs: number,
  revoked: boolean,
) {
  await db.query(
    `UPDATE integrations SET sync_state = $3, last_error = $4, lease_until = NULL,
       status = CASE WHEN $6 THEN 'error' ELSE status END,
       sync_due_at = CASE WHEN $6 THEN NULL ELSE now() + make_interval(secs => $5::double precision / 1000) END
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected'`,
    [accountId, id, state, { ...error, at: new Date().toISOString() }, retryInMs, revoked],
  );
}

export async function releaseIntegration(db: Queryable, accountId: string, id: string) {
  await db.query(`UPDATE integrations SET lease_until = NULL WHERE account_id = $1 AND id = $2`, [
    accountId,
    id,
  ]);
}

/** A run not finished this round: its lease handed back, due again at once. */
export async function releaseDueNow(db: Queryable, accountId: string, id: string) {
  await db.query(
    `UPDATE integrations SET lease_until = NULL, sync_due_at = now() WHERE account_id = $1 AND id = $2 AND status = 'active'`,
    [accountId, id],
  );
}

/** The sync state as last saved (a failure keeps the place reached). */
export async function syncStateOf(db: Queryable, accountId: string, id: string) {
  const { rows } = await db.query<{ sync_state: SyncState }>(
    'SELECT sync_state FROM integrations WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0]?.sync_state;
}

/** A person of a CRM as the sync writes it: the CRM's id and the parsed mobile. */
export interface CrmContactRecord {
  crm_id: number;
  event_id: string;
  contact_id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  mobile_number: string;
  mobile_country: string;
  mobile_valid: boolean;
  mobile_line_type: string;
}

/**
 * Writes a page of CRM people (distinct mobiles, each the lowest CRM id of its mobile within the
 * page) as contacts, set-based, with their contact-created / contact-updated events. A contact is
 * created for a new mobile; an existing one takes the CRM's names and e-mail and the CRM's id
 * field, unless it already carries a lower id of the same CRM (another CRM record with this phone:
 * lowest id wins; answered as a duplicate). A contact whose fields are all unchanged is left as it
 * is, without an event. Answers the contact ids by CRM id, and the CRM ids that lost to a lower one.
 */
export async function upsertCrmContacts(
  db: Queryable,
  accountId: string,
  type: string,
  records: CrmContactRecord[],
  by: object,
): Promise<{
  created: number;
  updated: number;
  unchanged: number;
  duplicates: number[];
  contactIds: Map<number, string>;
}> {
  const json = JSON.stringify(records);
  const input = `input AS (SELECT * FROM json_to_recordset($2::json) AS r(crm_id bigint, event_id uuid, contact_id uuid,
      first_name text, last_name text, email text, mobile_number text, mobile_country text, mobile_valid boolean,
      mobile_line_type text))`;
  const ins = await db.query<{ id: string; crm_id: string }>(
    `WITH ${input},
     ins AS (
       INSERT INTO contacts AS c (account_id, id, first_name, last_name, email, mobile_number, mobile_country, mobile_valid,
         mobile_line_type, integrations, created_by, updated_by)
       SELECT $1, i.contact_id, i.first_name, i.last_name, i.email, i.mobile_number, i.mobile_country, i.mobile_valid,
         i.mobile_line_type, jsonb_build_object($3::text, jsonb_build_object('id', i.crm_id)), $4, $4
         FROM input i
       ON CONFLICT (account_id, mobile_number) WHERE mobile_number IS NOT NULL DO NOTHING
       RETURNING c.*),
     ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT i.event_id, $1, 'contact-created', ${contactJsonSql('ins')} FROM ins JOIN input i ON i.contact_id = ins.id
       WHERE ${eventHeard('$1::uuid', "'contact-created'")})
     SELECT ins.id, (ins.integrations->$3::text->>'id') AS crm_id FROM ins`,
    [accountId, json, type, by],
  );
  const contactIds = new Map<number, string>();
  for (const r of ins.rows) contactIds.set(Number(r.crm_id), r.id);
  const rest = records.filter((r) => !contactIds.has(r.crm_id));
  if (rest.length === 0)
    return { created: ins.rows.length, updated: 0, unchanged: 0, duplicates: [], contactIds };
  const upd = await db.query<{ id: string; crm_id: string; outcome: 'updated' | 'unchanged' | 'duplicate' }>(
    `WITH ${input},
     cur AS (
       SELECT c.id, i.*, (c.integrations->$3::text->>'id')::bigint AS held,
              (c.first_name, c.last_name, c.email) IS NOT DISTINCT FROM (i.first_name, i.last_name, i.email) AS same
         FROM input i JOIN contacts c ON c.account_id = $1 AND c.mobile_number = i.mobile_number
          FOR UPDATE OF c),
     upd AS (
       UPDATE contacts c SET first_name = cur.first_name, last_name = cur.last_name, email = cur.email,
              integrations = c.integrations || jsonb_build_object($3::text, jsonb_build_object('id', cur.crm_id)),
              updated_at = now(), updated_by = $4
         FROM cur
        WHERE c.account_id = $1 AND c.id = cur.id AND (cur.held IS NULL OR cur.held >= cur.crm_id)
          AND NOT (cur.same AND cur.held IS NOT DISTINCT FROM cur.crm_id)
       RETURNING c.*, cur.event_id AS _event_id),
     ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT upd._event_id, $1, 'contact-updated', ${contactJsonSql('upd')} FROM upd)
     SELECT cur.id, cur.crm_id::text AS crm_id,
            CASE WHEN cur.held IS NOT NULL AND cur.held < cur.crm_id THEN 'duplicate'
                 WHEN EXISTS (SELECT 1 FROM upd WHERE upd.id = cur.id) THEN 'updated' ELSE 'unchanged' END AS outcome
       FROM cur`,
    [accountId, json, type, by],
  );
  const duplicates: number[] = [];
  let updated = 0;
  let unchanged = 0;
  for (const r of upd.rows) {
    if (r.outcome === 'duplicate') duplicates.push(Number(r.crm_id));
    else {
      contactIds.set(Number(r.crm_id), r.id);
      if (r.outcome === 'updated') updated++;
      else unchanged++;
    }
  }
  return { created: ins.rows.length, updated, unchanged, duplicates, contactIds };
}

/** Contacts of the account carrying the CRM's ids. */
export async function contactsByCrmIds(db: Queryable, accountId: string, type: string, ids: number[]) {
  const { rows } = await db.query<{ id: string; crm_id: string }>(
    `SELECT c.id, c.integrations->$2::text->>'id' AS crm_id FROM contacts c
      WHERE c.account_id = $1 AND c.integrations ? $2::text
        AND (c.integrations->$2::text->>'id')::numeric = ANY ($3::numeric[])`,
    [accountId, type, ids],
  );
  return rows;
}

/** Adds contacts to a list (already members are left as they are). */
export async function addListMembers(db: Queryable, accountId: string, listId: string, contactIds: string[]) {
  if (contactIds.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO list_members (account_id, list_id, contact_id)
     SELECT $1, $2, unnest($3::uuid[]) ON CONFLICT DO NOTHING`,
    [accountId, listId, contactIds],
  );
  return rowCount ?? 0;
}

/** Marks a list's source as synced now. */
export async function touchListSource(db: Queryable, accountId: string, listId: string, source: object) {
  await db.query(`UPDATE lists SET source = $3 WHERE account_id = $1 AND id = $2`, [
    accountId,
    listId,
    source,
  ]);
}

export async function listExists(db: Queryable, accountId: string, listId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM lists WHERE account_id = $1 AND id = $2`, [
    accountId,
    listId,
  ]);
  return rows.length > 0;
}

// ---- Sparrow → CRM ----------------------------------------------------------------------------

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
