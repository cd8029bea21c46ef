import { ACTOR_FIELDS } from '../../schemas/enums.ts';
import { MAX_ATTRIBUTE_BYTES, MAX_ATTRIBUTES } from '../../schemas/limits.ts';
/**
 * The set-based side of contacts: JSON records of contact fields, the column-by-column merge used by
 * updates and CSV uploads, and the bulk upsert that writes contacts and their events in one statement.
 */
import type { Queryable } from '../client.ts';
import type { ContactFields, ContactTag, MergeMode } from './contacts.ts';
import { eventHeard } from './events.ts';

/** A contact as a JSON record for the set-based statements (keys match mergeCte's recordset). */
export interface ContactRecord {
  id?: string;
  row?: number;
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  mobile_number?: string | null;
  mobile_country?: string | null;
  mobile_valid?: boolean | null;
  mobile_line_type?: string | null;
  attributes?: Record<string, unknown> | null;
  tags?: ContactTag[] | null;
  opt_in_at?: string | null;
  blocked_at?: string | null;
  /** Which fields were given: a field absent here is left alone (append/core/set) or cleared (remove). */
  given: string[];
}

export function fieldsToRecord(f: ContactFields): ContactRecord {
  const given: string[] = [];
  const r: ContactRecord = { given };
  if (f.firstName !== undefined) {
    given.push('first_name');
    r.first_name = f.firstName;
  }
  if (f.lastName !== undefined) {
    given.push('last_name');
    r.last_name = f.lastName;
  }
  if (f.email !== undefined) {
    given.push('email');
    r.email = f.email;
  }
  if (f.mobile !== undefined) {
    given.push('mobile');
    r.mobile_number = f.mobile?.number ?? null;
    r.mobile_country = f.mobile?.country ?? null;
    r.mobile_valid = f.mobile?.valid ?? false;
    r.mobile_line_type = f.mobile?.lineType ?? null;
  }
  if (f.attributes !== undefined) {
    given.push('attributes');
    r.attributes = f.attributes;
  }
  if (f.tags !== undefined) {
    given.push('tags');
    r.tags = f.tags;
  }
  if (f.optIn !== undefined) {
    given.push('opt_in_at');
    r.opt_in_at = f.optIn ? f.optIn.toISOString() : null;
  }
  if (f.blocked !== undefined) {
    given.push('blocked_at');
    r.blocked_at = f.blocked ? f.blocked.toISOString() : null;
  }
  return r;
}

// The input CTE: $<json> is a JSON array of ContactRecord, $<mode> the merge mode.
export const mergeCte = (json: number, mode: number) => `WITH input AS (
    SELECT r.*, ($${mode}::text) AS mode FROM json_to_recordset($${json}::json) AS r(
      id uuid, "row" int, event_id uuid, first_name text, last_name text, email text, mobile_number text, mobile_country text,
      mobile_valid boolean, mobile_line_type text, attributes jsonb, tags jsonb, opt_in_at timestamptz,
      blocked_at timestamptz, given text[])
  )`;

// Column-by-column merge of input i into contact c, per mode (see updateContact). A merge of attributes
// may not grow a contact past MAX_ATTRIBUTES and MAX_ATTRIBUTE_BYTES (raises SQLSTATE SPA01).
const g = (f: string) => `(i.given @> ARRAY['${f}'])`;
const plain = (col: string, field = col) =>
  `${col} = CASE WHEN i.mode = 'remove' OR ${g(field)} AND i.mode <> 'core' THEN i.${col} ELSE c.${col} END`;
const core = (col: string, field = col) =>
  `${col} = CASE WHEN i.mode = 'remove' OR ${g(field)} THEN i.${col} ELSE c.${col} END`;
export const mergeSet = (byParam: number) =>
  [
    core('first_name'),
    core('last_name'),
    core('email'),
    // The mobile number itself identifies the contact in a merge; PUT may change it (mode 'set').
    `mobile_number = CASE WHEN ${g('mobile')} AND i.mode = 'set' THEN i.mobile_number ELSE c.mobile_number END`,
    `mobile_country = CASE WHEN ${g('mobile')} THEN i.mobile_country ELSE c.mobile_country END`,
    `mobile_valid = CASE WHEN ${g('mobile')} THEN i.mobile_valid ELSE c.mobile_valid END`,
    `mobile_line_type = CASE WHEN ${g('mobile')} THEN i.mobile_line_type ELSE c.mobile_line_type END`,
    `mobile_verified_at = CASE WHEN ${g('mobile')} AND i.mobile_number IS DISTINCT FROM c.mobile_number THEN NULL ELSE c.mobile_verified_at END`,
    `attributes = CASE
     WHEN i.mode = 'remove' THEN coalesce(i.attributes, '{}')
     WHEN i.mode = 'core' OR NOT ${g('attributes')} THEN c.attributes
     ELSE sparrow_limit_attributes((SELECT coalesce(jsonb_object_agg(e.k, e.v), '{}')
            FROM jsonb_each(c.attributes || coalesce(i.attributes, '{}')) e(k, v) WHERE e.v <> 'null'::jsonb),
            ${MAX_ATTRIBUTES}, ${MAX_ATTRIBUTE_BYTES}, i."row") END`,
    `tags = CASE
     WHEN i.mode = 'remove' THEN coalesce(i.tags, '[]')
     WHEN i.mode = 'core' OR NOT ${g('tags')} THEN c.tags
     WHEN i.mode = 'set' THEN coalesce(i.tags, '[]')
     ELSE (SELECT coalesce(jsonb_agg(t.v ORDER BY t.o), '[]') FROM (
             SELECT DISTINCT ON (x.v->>'tag') x.v, x.o FROM (
               SELECT v, o FROM jsonb_array_elements(c.tags) WITH ORDINALITY AS a(v, o)
               UNION ALL SELECT v, o + 100000 FROM jsonb_array_elements(coalesce(i.tags, '[]')) WITH ORDINALITY AS b(v, o)
             ) x ORDER BY x.v->>'tag', x.o DESC) t) END`,
    plain('opt_in_at'),
    plain('blocked_at'),
    'updated_at = now()',
    `updated_by = $${byParam}`,
  ].join(',\n       ');

const isoSql = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An audit stamp's `by` as stamp() in domain/actor.ts answers it: the seven fields, empty where unknown. */
const EMPTY_ACTOR = JSON.stringify(Object.fromEntries(ACTOR_FIELDS.map((f) => [f, ''])));
const actorSql = (col: string) =>
  `('${EMPTY_ACTOR}'::jsonb || jsonb_strip_nulls(coalesce(${col}, '{}'::jsonb)))`;

/**
 * The Contact shape built in SQL from a contacts row aliased `a` (lists included), for events
 * written set-based. Must stay identical to presentContact() in src/domain/contacts/present-contact.ts
 * (test/db/contact-json.test.ts): unset fields are left out. Built without sparrow_omit_nulls (a
 * SQL function run per row, most of the cost of a set-based contact event): the fields that are
 * never null in one object, the ones that may be in a jsonb_strip_nulls'd one (their values hold no
 * nested nulls to strip), `error` (nested nulls kept) on its own. `fresh`: rows inserted by the same
 * statement, which can have no list memberships and no integrations yet.
 */
export function contactJsonSql(a: string, opts: { fresh?: boolean } = {}): string {
  const lists = opts.fresh
    ? `'[]'::jsonb`
    : `(SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('id', l.id, 'name', l.name,
                'optIn', ${isoSql('m.opt_in_at')}, 'optOut', ${isoSql('m.opt_out_at')})) ORDER BY m.added_at, l.id), '[]')
                FROM list_members m JOIN lists l ON l.account_id = m.account_id AND l.id = m.list_id
               WHERE m.account_id = ${a}.account_id AND m.contact_id = ${a}.id)`;
  const integrations = opts.fresh
    ? ''
    : ` || (SELECT coalesce(jsonb_object_agg(k, v), '{}') FROM jsonb_each(${a}.integrations) x(k, v) WHERE jsonb_typeof(v) = 'object')`;
  return `(jsonb_build_object(
    'id', ${a}.id, 'lists', ${lists}, 'attributes', ${a}.attributes, 'tags', ${a}.tags, 'valid', ${a}.valid,
    'created', jsonb_build_object('at', ${isoSql(`${a}.created_at`)}, 'by', ${actorSql(`${a}.created_by`)}),
    'updated', jsonb_build_object('at', ${isoSql(`${a}.updated_at`)}, 'by', ${actorSql(`${a}.updated_by`)}))
    || jsonb_strip_nulls(jsonb_build_object(
    'email', ${a}.email, 'firstName', ${a}.first_name, 'lastName', ${a}.last_name,
    'mobile', CASE WHEN ${a}.mobile_number IS NULL THEN NULL ELSE jsonb_build_object(
      'country', ${a}.mobile_country, 'number', ${a}.mobile_number, 'verified', ${isoSql(`${a}.mobile_verified_at`)},
      'valid', ${a}.mobile_valid, 'lineType', ${a}.mobile_line_type) END,
    'optIn', ${isoSql(`${a}.opt_in_at`)}, 'optOut', ${isoSql(`${a}.opted_out_at`)}, 'blocked', ${isoSql(`${a}.blocked_at`)}))
    || CASE WHEN ${a}.error IS NULL OR jsonb_typeof(${a}.error) = 'null' THEN '{}'::jsonb ELSE jsonb_build_object('error', ${a}.error) END${integrations})`;
}

/** A record of a set-based upsert: the new contact's id, the upload row, and the id of its event. */
export type UpsertRecord = ContactRecord & { id: string; row: number; event_id: string };

/**
 * Upserts a chunk of contacts in two statements, each also writing the contact-created /
 * contact-updated events set-based. Rows whose mobile is new are inserted; with a merge mode the
 * others are merged into the existing contact, without one they are answered as duplicates.
 * Records must carry distinct mobile numbers (the caller splits repeats into later rounds).
 */
export async function upsertContactsSet(
  db: Queryable,
  accountId: string,
  records: UpsertRecord[],
  mode: Exclude<MergeMode, 'set'> | undefined,
  by: object,
): Promise<{
  inserted: { id: string; row: number }[];
  updated: { id: string; row: number }[];
  duplicates: number[];
}> {
  // Named: the same statement every time (its input a JSON recordset the planner sizes the same
  // whatever its length), so its plan is made once per connection.
  const ins = await db.query<{ id: string; row: number }>({
    name: 'upsert-contacts-insert',
    text: `${mergeCte(2, 3)},
     ins AS (
       INSERT INTO contacts AS c (account_id, id, first_name, last_name, email, mobile_number, mobile_country, mobile_valid,
         mobile_line_type, attributes, tags, opt_in_at, blocked_at, created_by, updated_by)
       SELECT $1, i.id, i.first_name, i.last_name, i.email, i.mobile_number, i.mobile_country, coalesce(i.mobile_valid, false),
         i.mobile_line_type, coalesce(i.attributes, '{}'), coalesce(i.tags, '[]'), i.opt_in_at, i.blocked_at, $4, $4
         FROM input i
       ON CONFLICT (account_id, mobile_number) WHERE mobile_number IS NOT NULL DO NOTHING
       RETURNING c.*),
     ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT i.event_id, $1, 'contact-created', ${contactJsonSql('ins', { fresh: true })} FROM ins JOIN input i ON i.id = ins.id
       WHERE ${eventHeard('$1::uuid', "'contact-created'")})
     SELECT ins.id, i."row" FROM ins JOIN input i ON i.id = ins.id`,
    values: [accountId, JSON.stringify(records), mode ?? 'append', by],
  });
  const insertedIds = new Set(ins.rows.map((r) => r.id));
  const rest = records.filter((r) => !insertedIds.has(r.id));
  if (rest.length === 0) return { inserted: ins.rows, updated: [], duplicates: [] };
  if (!mode) return { inserted: ins.rows, updated: [], duplicates: rest.map((r) => r.row) };
  const upd = await db.query<{ id: string; row: number }>(
    `${mergeCte(2, 3)},
     upd AS (
       UPDATE contacts c SET ${mergeSet(4)}
         FROM input i
        WHERE c.account_id = $1 AND c.mobile_number = i.mobile_number
       RETURNING c.*, i."row" AS _row, i.event_id AS _event_id),
     ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT upd._event_id, $1, 'contact-updated', ${contactJsonSql('upd')} FROM upd)
     SELECT upd.id, upd._row AS "row" FROM upd`,
    [accountId, JSON.stringify(rest), mode, by],
  );
  // A contact deleted between the two statements is neither inserted nor merged: report it as a duplicate.
  const updatedRows = new Set(upd.rows.map((r) => r.row));
  return {
    inserted: ins.rows,
    updated: upd.rows,
    duplicates: rest.filter((r) => !updatedRows.has(r.row)).map((r) => r.row),
  };
}
