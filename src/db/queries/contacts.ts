import type { Queryable } from '../client.ts';
import {
  fieldsToRecord,
  mergeCte,
  mergeSet,
  type UpsertRecord,
  upsertContactsSet,
} from './contacts-merge.ts';

/** A contact row as stored. */
export interface ContactRow {
  account_id: string;
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  mobile_number: string | null;
  mobile_country: string | null;
  mobile_valid: boolean;
  mobile_line_type: string | null;
  mobile_verified_at: Date | null;
  attributes: Record<string, unknown>;
  tags: ContactTag[];
  integrations: Record<string, unknown>;
  opt_in_at: Date | null;
  opted_out_at: Date | null;
  blocked_at: Date | null;
  valid: boolean;
  error: { code: string; description: string } | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** A contact tag as stored and shown. */
export interface ContactTag {
  tag: string;
  visible: boolean;
}

/** The writable fields of a contact; undefined = not given. */
export interface ContactFields {
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  mobile?: { number: string; country: string; valid: boolean; lineType: string } | null;
  attributes?: Record<string, unknown>;
  tags?: ContactTag[];
  optIn?: Date | null;
  blocked?: Date | null;
}

/** Inserts a contact unless its mobile already exists in the account; answers the row, or undefined on conflict. */
export async function insertContactIfAbsent(
  db: Queryable,
  accountId: string,
  c: { id: string; fields: ContactFields; by: object },
): Promise<ContactRow | undefined> {
  const f = c.fields;
  const { rows } = await db.query<ContactRow>(
    `INSERT INTO contacts (account_id, id, first_name, last_name, email, mobile_number, mobile_country, mobile_valid,
       mobile_line_type, attributes, tags, opt_in_at, blocked_at, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
     ON CONFLICT (account_id, mobile_number) WHERE mobile_number IS NOT NULL DO NOTHING
     RETURNING *`,
    [
      accountId,
      c.id,
      f.firstName ?? null,
      f.lastName ?? null,
      f.email ?? null,
      f.mobile?.number ?? null,
      f.mobile?.country ?? null,
      f.mobile?.valid ?? false,
      f.mobile?.lineType ?? null,
      JSON.stringify(f.attributes ?? {}),
      JSON.stringify(f.tags ?? []),
      f.optIn ?? null,
      f.blocked ?? null,
      c.by,
    ],
  );
  return rows[0];
}

export async function findContact(
  db: Queryable,
  accountId: string,
  contactId: string,
): Promise<ContactRow | undefined> {
  const { rows } = await db.query<ContactRow>('SELECT * FROM contacts WHERE account_id = $1 AND id = $2', [
    accountId,
    contactId,
  ]);
  return rows[0];
}

/** One contact with its list memberships, in a single round trip (the hot read path). */
export async function findContactWithMemberships(
  db: Queryable,
  accountId: string,
  contactId: string,
): Promise<(ContactRow & { memberships: Omit<MembershipRow, 'contact_id'>[] }) | undefined> {
  // A named (prepared) statement: this is the hot read path, planned once per connection.
  const { rows } = await db.query<ContactRow & { memberships: Omit<MembershipRow, 'contact_id'>[] }>({
    name: 'contact-with-memberships',
    text: `SELECT c.*, COALESCE((
        SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'opt_in_at', m.opt_in_at, 'opt_out_at', m.opt_out_at)
                        ORDER BY m.added_at, l.id)
          FROM list_members m JOIN lists l ON l.account_id = m.account_id AND l.id = m.list_id
         WHERE m.account_id = c.account_id AND m.contact_id = c.id), '[]') AS memberships
       FROM contacts c WHERE c.account_id = $1 AND c.id = $2`,
    values: [accountId, contactId],
  });
  return rows[0];
}

export async function findContactByMobile(
  db: Queryable,
  accountId: string,
  number: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ContactRow | undefined> {
  const { rows } = await db.query<ContactRow>(
    `SELECT * FROM contacts WHERE account_id = $1 AND mobile_number = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, number],
  );
  return rows[0];
}

/** How given fields are combined with a stored contact's (the upload's mergeStrategy). */
export type MergeMode = 'append' | 'core' | 'remove' | 'set';

/**
 * Updates a contact. 'set' (PUT) and 'append' write the given fields, merging attributes (given keys
 * win) and tags (union by tag); 'core' writes only names, email and mobile country; 'remove' replaces
 * the contact's data with the given data (everything not given is cleared). Answers the new row.
 */
export async function updateContact(
  db: Queryable,
  accountId: string,
  contactId: string,
  fields: ContactFields,
  mode: MergeMode,
  by: object,
): Promise<ContactRow | undefined> {
  return (await updateContacts(db, accountId, [{ id: contactId, fields }], mode, by))[0];
}

/** updateContact for many contacts in one statement (bulk operations): each its own fields. */
export async function updateContacts(
  db: Queryable,
  accountId: string,
  changes: { id: string; fields: ContactFields }[],
  mode: MergeMode,
  by: object,
): Promise<ContactRow[]> {
  if (changes.length === 0) return [];
  const { rows } = await db.query<ContactRow>(
    `${mergeCte(2, 3)}
     UPDATE contacts c SET ${mergeSet(4)}
     FROM input i WHERE c.account_id = $1 AND c.id = i.id RETURNING c.*`,
    [accountId, JSON.stringify(changes.map((c) => ({ ...fieldsToRecord(c.fields), id: c.id }))), mode, by],
  );
  return rows;
}

export async function deleteContact(
  db: Queryable,
  accountId: string,
  contactId: string,
): Promise<ContactRow | undefined> {
  return (await deleteContacts(db, accountId, [contactId]))[0];
}

/** deleteContact for many contacts in one statement (bulk operations); answers the rows deleted. */
export async function deleteContacts(
  db: Queryable,
  accountId: string,
  contactIds: string[],
): Promise<ContactRow[]> {
  if (contactIds.length === 0) return [];
  const { rows } = await db.query<ContactRow>(
    `WITH conv AS (DELETE FROM conversations WHERE account_id = $1 AND contact_id = ANY($2::uuid[]))
     DELETE FROM contacts WHERE account_id = $1 AND id = ANY($2::uuid[]) RETURNING *`,
    [accountId, contactIds],
  );
  return rows;
}

/** A contact's list memberships, for the Contact shape's `lists`. */
export interface MembershipRow {
  contact_id: string;
  id: string;
  name: string;
  opt_in_at: Date | null;
  opt_out_at: Date | null;
}

export async function listMemberships(
  db: Queryable,
  accountId: string,
  contactIds: string[],
): Promise<MembershipRow[]> {
  if (contactIds.length === 0) return [];
  const { rows } = await db.query<MembershipRow>(
    `SELECT m.contact_id, l.id, l.name, m.opt_in_at, m.opt_out_at
       FROM list_members m JOIN lists l ON l.account_id = m.account_id AND l.id = m.list_id
      WHERE m.account_id = $1 AND m.contact_id = ANY($2::uuid[])
      ORDER BY m.added_at, l.id`,
    [accountId, contactIds],
  );
  return rows;
}

/** Filters of the contacts list: each a case-insensitive partial match; q spans names, email and mobile. */
export interface ContactFilter {
  firstName?: string;
  lastName?: string;
  mobile?: string;
  email?: string;
  tags?: string;
  q?: string;
}

/** Escapes LIKE wildcards so user text matches literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/** Builds the WHERE conditions of a contact filter, appending parameters to params. `c` is the contacts alias. */
/** The WHERE conditions of a contact filter on contacts alias `c`, appending their parameters to params. */
export function contactFilterSql(filter: ContactFilter, params: unknown[], c = 'c'): string[] {
  const where: string[] = [];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.firstName) where.push(`${c}.first_name ILIKE ${add(likePattern(filter.firstName))}`);
  if (filter.lastName) where.push(`${c}.last_name ILIKE ${add(likePattern(filter.lastName))}`);
  if (filter.email) where.push(`${c}.email ILIKE ${add(likePattern(filter.email))}`);
  if (filter.mobile) where.push(`${c}.mobile_number ILIKE ${add(likePattern(filter.mobile))}`);
  if (filter.tags) {
    // Several tags separated by commas: a contact matches when it carries a tag matching each one.
    for (const tag of filter.tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)) {
      where.push(
        `EXISTS (SELECT 1 FROM jsonb_array_elements(${c}.tags) t WHERE t->>'tag' ILIKE ${add(likePattern(tag))})`,
      );
    }
  }
  if (filter.q) {
    const p = add(likePattern(filter.q));
    where.push(
      `(${c}.first_name ILIKE ${p} OR ${c}.last_name ILIKE ${p} OR ${c}.email ILIKE ${p} OR ${c}.mobile_number ILIKE ${p}
        OR concat_ws(' ', ${c}.first_name, ${c}.last_name) ILIKE ${p})`,
    );
  }
  return where;
}

/** One page of an account's contacts, newest first, with the total count. */
export async function listContacts(
  db: Queryable,
  accountId: string,
  filter: ContactFilter & { extraWhere?: (params: unknown[]) => string },
  page: { limit: number; offset: number },
): Promise<{ rows: ContactRow[]; total: number }> {
  const params: unknown[] = [accountId];
  const where = ['c.account_id = $1', ...contactFilterSql(filter, params)];
  if (filter.extraWhere) where.push(filter.extraWhere(params));
  const cond = where.join(' AND ');
  const count = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM contacts c WHERE ${cond}`,
    params,
  );
  params.push(page.limit, page.offset);
  const { rows } = await db.query<ContactRow>(
    `SELECT c.* FROM contacts c WHERE ${cond}
      ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return { rows, total: count.rows[0].n };
}

/** Contacts by id (for answering the first rows of an upload). */
export async function findContacts(db: Queryable, accountId: string, ids: string[]): Promise<ContactRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ContactRow>(
    'SELECT * FROM contacts WHERE account_id = $1 AND id = ANY($2::uuid[])',
    [accountId, ids],
  );
  return rows;
}

/** The account's contacts with these E.164 mobiles: id and mobile (each mobile looked up by key). */
export async function contactsByMobile(
  db: Queryable,
  accountId: string,
  mobiles: string[],
): Promise<{ id: string; mobile_number: string }[]> {
  const { rows } = await db.query<{ id: string; mobile_number: string }>(
    'SELECT id, mobile_number FROM contacts WHERE account_id = $1 AND mobile_number = ANY($2::text[])',
    [accountId, mobiles],
  );
  return rows;
}

/**
 * Creates a contact for each of these mobiles that has none (records keyed by E.164 number, nothing
 * merged into existing contacts, each with its contact-created event) and answers each number's
 * contact id and how many were created. New contacts are known by their records: only the numbers
 * that already had one are looked up.
 */
export async function contactsForMobiles(
  db: Queryable,
  accountId: string,
  byNumber: Map<string, UpsertRecord>,
  by: object,
): Promise<{ ids: Map<string, string>; created: number }> {
  const { inserted } = await upsertContactsSet(db, accountId, [...byNumber.values()], undefined, by);
  const fresh = new Set(inserted.map((c) => c.id));
  const ids = new Map<string, string>();
  for (const [number, record] of byNumber) if (fresh.has(record.id)) ids.set(number, record.id);
  const known = [...byNumber.keys()].filter((n) => !ids.has(n));
  if (known.length > 0)
    for (const c of await contactsByMobile(db, accountId, known)) ids.set(c.mobile_number, c.id);
  return { ids, created: inserted.length };
}
