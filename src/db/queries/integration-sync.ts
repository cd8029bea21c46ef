/**
 * A CRM integration's sync (issue 29): its lease and progress, and the contacts it writes (with
 * their events, set-based) and the lists it fills.
 */
import type { Queryable } from '../client.ts';
import { contactJsonSql } from './contacts-merge.ts';
import { eventHeard } from './events.ts';
import type { IntegrationRow, SyncState } from './integrations.ts';

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
