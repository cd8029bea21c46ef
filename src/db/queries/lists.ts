import type { Queryable } from '../client.ts';
import { contactFilterSql } from './contacts.ts';

/** An attribute condition of a smart list: `attribute comparator value` (any of the values for =). */
export interface AttributeCondition {
  attribute: string;
  comparator: '=' | '!=' | '<' | '<=' | '>' | '>=';
  value: string[];
}

/** A smart list's filter: its members are the contacts that match all of the given conditions. */
export interface ListFilter {
  q?: string;
  attributes?: AttributeCondition[];
  list?: string;
  valid?: boolean;
  invalid?: boolean;
  blocked?: boolean;
  unblocked?: boolean;
  optIn?: boolean;
}

/** A list row as stored. */
export interface ListRow {
  account_id: string;
  id: string;
  name: string;
  source: Record<string, unknown> | null;
  keyword: string | null;
  double_opt_in: { enabled: boolean; prompt?: string };
  filter: ListFilter | null;
  opt_in_confirmation: string | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** The writable fields of a list; undefined = not given. */
export interface ListFields {
  name?: string;
  source?: Record<string, unknown> | null;
  keyword?: string | null;
  doubleOptIn?: { enabled: boolean; prompt?: string };
  filter?: ListFilter | null;
  optInConfirmation?: string | null;
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const OPS = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

/** A list is smart when it has a filter; its members are then evaluated from the filter, never stored. */
export function isSmartList(list: Pick<ListRow, 'filter'>): boolean {
  return list.filter !== null && list.filter !== undefined;
}

const NUMERIC_TEXT = `'^-?[0-9]+(\\.[0-9]+)?$'`;

/**
 * One attribute condition as SQL. Numeric when both sides are numbers, else case-insensitive text.
 * `=` (any of the values) and `!=` (none of them) match against constant arrays, one of numbers and
 * one of lower-cased texts, which PostgreSQL probes by hash: the cost per contact hardly grows with
 * the number of values (as one comparison per value, 1,000 values took 2.3 s over 20,000 contacts
 * and 60,000 values passed the 30 s statement timeout).
 */
function attributeSql(cond: AttributeCondition, add: (v: unknown) => string, c: string): string {
  const attr = `(${c}.attributes ->> ${add(cond.attribute)})`;
  const values = cond.value.length > 0 ? cond.value : [''];
  if (cond.comparator === '=' || cond.comparator === '!=') {
    // A number matches a numeric attribute by value ("10" = "10.0"), and nothing else: a text equal
    // to a number is numeric itself. A text matches case-insensitively.
    const numbers = [...new Set(values.filter((v) => NUMBER.test(v)))];
    const texts = [...new Set(values.filter((v) => !NUMBER.test(v)))];
    const any: string[] = [];
    if (numbers.length > 0)
      any.push(
        `(CASE WHEN ${attr} ~ ${NUMERIC_TEXT} THEN ${attr}::numeric = ANY(${add(numbers)}::numeric[]) ELSE false END)`,
      );
    // lower() of each value in SQL (the server's own case rules, as for the attribute): an array
    // of constants, folded to one constant array when planned, hence hashed.
    if (texts.length > 0)
      any.push(`(lower(${attr}) = ANY(ARRAY[${texts.map((v) => `lower(${add(v)}::text)`).join(', ')}]))`);
    const matches = `coalesce(${any.join(' OR ')}, false)`;
    // != : none of the values; a contact without the attribute is "not equal".
    return cond.comparator === '=' ? matches : `NOT ${matches}`;
  }
  const op = OPS[cond.comparator];
  const value = values[0];
  return NUMBER.test(value)
    ? `coalesce(CASE WHEN ${attr} ~ ${NUMERIC_TEXT} THEN ${attr}::numeric ${op} ${add(value)}::numeric
                     ELSE lower(${attr}) ${op} lower(${add(value)}) END, false)`
    : `coalesce(lower(${attr}) ${op} lower(${add(value)}), false)`;
}

/**
 * Whether a smart list's filter names a condition: without one it would select every contact of
 * the account (refused when a list is written: LIST-004).
 */
export function filterNamesCondition(f: ListFilter): boolean {
  return Boolean(
    f.q?.trim() ||
      (f.attributes?.length ?? 0) > 0 ||
      f.list ||
      Boolean(f.valid) !== Boolean(f.invalid) ||
      Boolean(f.blocked) !== Boolean(f.unblocked) ||
      f.optIn,
  );
}

/**
 * The SQL condition "contact `c` is a member of this list", appending its parameters to params:
 * for a static list, a membership row; for a smart list, its filter (evaluated now, so a send or a
 * read sees the contacts that match at that moment). Use it as
 * `SELECT c.id FROM contacts c WHERE c.account_id = $1 AND ${listMemberCondition(list, params)}`.
 * It does not exclude opted-out or blocked contacts: senders check those themselves.
 */
export function listMemberCondition(
  list: Pick<ListRow, 'id' | 'filter'>,
  params: unknown[],
  c = 'c',
): string {
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const f = list.filter;
  if (!f) {
    return `EXISTS (SELECT 1 FROM list_members m WHERE m.account_id = ${c}.account_id AND m.list_id = ${add(list.id)}::uuid AND m.contact_id = ${c}.id)`;
  }
  // A stored filter that names no condition (written before LIST-004, or with a key that was never
  // one, such as `listId`) holds nobody: read as "every contact" it was sendable to the whole account.
  if (!filterNamesCondition(f)) return 'false';
  const where: string[] = ['true'];
  if (f.q) where.push(...contactFilterSql({ q: f.q }, params, c));
  for (const cond of f.attributes ?? []) where.push(attributeSql(cond, add, c));
  if (f.list) {
    // Membership of another list counts its stored members (smart lists do not nest).
    where.push(
      `EXISTS (SELECT 1 FROM list_members m WHERE m.account_id = ${c}.account_id AND m.list_id = ${add(f.list)}::uuid AND m.contact_id = ${c}.id)`,
    );
  }
  if (f.valid && !f.invalid) where.push(`(${c}.valid AND ${c}.mobile_valid)`);
  if (f.invalid && !f.valid) where.push(`NOT (${c}.valid AND ${c}.mobile_valid)`);
  if (f.blocked && !f.unblocked) where.push(`${c}.blocked_at IS NOT NULL`);
  if (f.unblocked && !f.blocked) where.push(`${c}.blocked_at IS NULL`);
  if (f.optIn) where.push(`(${c}.opt_in_at IS NOT NULL AND ${c}.opted_out_at IS NULL)`);
  return `(${where.join(' AND ')})`;
}

/** The ids of a list's contacts (static or smart), as a query other code can run or embed. */
export function listContactIdsQuery(
  accountId: string,
  list: Pick<ListRow, 'id' | 'filter'>,
): { text: string; values: unknown[] } {
  const values: unknown[] = [accountId];
  const cond = listMemberCondition(list, values);
  return { text: `SELECT c.id FROM contacts c WHERE c.account_id = $1 AND ${cond}`, values };
}

export async function insertList(
  db: Queryable,
  accountId: string,
  l: { id: string; fields: ListFields; by: object },
): Promise<ListRow> {
  const f = l.fields;
  const { rows } = await db.query<ListRow>(
    `INSERT INTO lists (account_id, id, name, source, keyword, double_opt_in, filter, opt_in_confirmation, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING *`,
    [
      accountId,
      l.id,
      f.name,
      f.source ?? null,
      f.keyword ?? null,
      f.doubleOptIn ?? { enabled: false },
      f.filter ? JSON.stringify(f.filter) : null,
      f.optInConfirmation ?? null,
      l.by,
    ],
  );
  return rows[0];
}

export async function findList(
  db: Queryable,
  accountId: string,
  listId: string,
): Promise<ListRow | undefined> {
  const { rows } = await db.query<ListRow>('SELECT * FROM lists WHERE account_id = $1 AND id = $2', [
    accountId,
    listId,
  ]);
  return rows[0];
}

/** Updates the given fields of a list; answers the new row. */
export async function updateList(
  db: Queryable,
  accountId: string,
  listId: string,
  f: ListFields,
  by: object,
): Promise<ListRow | undefined> {
  const sets: string[] = [];
  const params: unknown[] = [accountId, listId];
  const set = (col: string, value: unknown) => {
    params.push(value);
    sets.push(`${col} = $${params.length}`);
  };
  if (f.name !== undefined) set('name', f.name);
  if (f.source !== undefined) set('source', f.source);
  if (f.keyword !== undefined) set('keyword', f.keyword);
  if (f.doubleOptIn !== undefined) set('double_opt_in', f.doubleOptIn);
  if (f.filter !== undefined) set('filter', f.filter ? JSON.stringify(f.filter) : null);
  if (f.optInConfirmation !== undefined) set('opt_in_confirmation', f.optInConfirmation);
  set('updated_by', by);
  const { rows } = await db.query<ListRow>(
    `UPDATE lists SET ${sets.join(', ')}, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING *`,
    params,
  );
  return rows[0];
}

export async function deleteList(db: Queryable, accountId: string, listId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM lists WHERE account_id = $1 AND id = $2', [
    accountId,
    listId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** One page of the account's lists, newest first, with the total count. */
export async function listLists(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { limit: number; offset: number },
): Promise<{ rows: ListRow[]; total: number }> {
  const params: unknown[] = [accountId];
  let cond = 'account_id = $1';
  if (filter.name) {
    params.push(`%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    cond += ` AND name ILIKE $${params.length}`;
  }
  const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM lists WHERE ${cond}`, params);
  const { rows } = await db.query<ListRow>(
    `SELECT * FROM lists WHERE ${cond} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { rows, total: count.rows[0].n };
}

/** The member count of each list (static lists by membership rows, smart lists by their filter). */
export async function listSizes(
  db: Queryable,
  accountId: string,
  lists: Pick<ListRow, 'id' | 'filter'>[],
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const staticIds = lists.filter((l) => !isSmartList(l)).map((l) => l.id);
  if (staticIds.length > 0) {
    const { rows } = await db.query<{ list_id: string; n: number }>(
      `SELECT list_id, count(*)::int AS n FROM list_members WHERE account_id = $1 AND list_id = ANY($2::uuid[]) GROUP BY list_id`,
      [accountId, staticIds],
    );
    for (const id of staticIds) sizes.set(id, 0);
    for (const r of rows) sizes.set(r.list_id, r.n);
  }
  for (const l of lists.filter(isSmartList)) {
    const params: unknown[] = [accountId];
    const cond = listMemberCondition(l, params);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contacts c WHERE c.account_id = $1 AND ${cond}`,
      params,
    );
    sizes.set(l.id, rows[0].n);
  }
  return sizes;
}

/**
 * Adds contacts to a static list in one statement; ids that name no contact of the account are
 * skipped. optIn stamps the memberships' opt-in time (null while a double opt-in is pending).
 */
export async function addListMembers(
  db: Queryable,
  accountId: string,
  listId: string,
  contactIds: string[],
  optIn: boolean,
): Promise<{ added: number; alreadyMember: number; notFound: number }> {
  const { rows } = await db.query<{ added: number; found: number; wanted: number }>(
    `WITH wanted AS (SELECT DISTINCT unnest($3::uuid[]) AS id),
          found AS (SELECT c.id FROM contacts c JOIN wanted w ON w.id = c.id WHERE c.account_id = $1),
          ins AS (
            INSERT INTO list_members (account_id, list_id, contact_id, opt_in_at)
            SELECT $1, $2, f.id, CASE WHEN $4 THEN now() END FROM found f
            ON CONFLICT (account_id, list_id, contact_id) DO NOTHING
            RETURNING contact_id)
     SELECT (SELECT count(*) FROM ins)::int AS added, (SELECT count(*) FROM found)::int AS found,
            (SELECT count(*) FROM wanted)::int AS wanted`,
    [accountId, listId, contactIds, optIn],
  );
  const r = rows[0];
  return { added: r.added, alreadyMember: r.found - r.added, notFound: r.wanted - r.found };
}

export async function removeListMember(
  db: Queryable,
  accountId: string,
  listId: string,
  contactId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM list_members WHERE account_id = $1 AND list_id = $2 AND contact_id = $3',
    [accountId, listId, contactId],
  );
  return (rowCount ?? 0) > 0;
}
