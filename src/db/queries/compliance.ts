import type { Queryable } from '../client.ts';

/** A compliance registration as stored, with its numbers and group named. */
export interface RegistrationRow {
  id: string;
  kind: string;
  name: string;
  external_id: string | null;
  parent_id: string | null;
  status: string;
  use_case: string | null;
  phone_numbers: { id: string; number: string }[];
  group_ref: { id: string; name: string } | null;
  messages_per_second: number | null;
  daily_cap: number | null;
  notes: string | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** The fields a caller sets (null clears an optional one; undefined leaves it). */
export interface RegistrationFields {
  kind?: string;
  name?: string;
  externalId?: string | null;
  parentId?: string | null;
  status?: string;
  useCase?: string | null;
  phoneNumberIds?: string[];
  groupId?: string | null;
  messagesPerSecond?: number | null;
  dailyCap?: number | null;
  notes?: string | null;
}

const SELECT = `SELECT r.id, r.kind, r.name, r.external_id, r.parent_id, r.status, r.use_case,
       coalesce((SELECT json_agg(json_build_object('id', p.id, 'number', p.number) ORDER BY p.number)
                   FROM phone_numbers p WHERE p.account_id = r.account_id AND p.id = ANY (r.phone_number_ids)), '[]') AS phone_numbers,
       (SELECT json_build_object('id', g.id, 'name', g.name) FROM groups g
         WHERE g.account_id = r.account_id AND g.id = r.group_id) AS group_ref,
       r.messages_per_second, r.daily_cap, r.notes, r.created_at, r.created_by, r.updated_at, r.updated_by
  FROM compliance_registrations r`;

/** Columns set from the fields, in order after $1 (account) and $2 (id). */
const COLUMNS: [keyof RegistrationFields, string, string?][] = [
  ['kind', 'kind'],
  ['name', 'name'],
  ['externalId', 'external_id'],
  ['parentId', 'parent_id', 'uuid'],
  ['status', 'status'],
  ['useCase', 'use_case'],
  ['phoneNumberIds', 'phone_number_ids', 'uuid[]'],
  ['groupId', 'group_id', 'uuid'],
  ['messagesPerSecond', 'messages_per_second', 'integer'],
  ['dailyCap', 'daily_cap', 'integer'],
  ['notes', 'notes'],
];

export async function insertRegistration(
  db: Queryable,
  accountId: string,
  id: string,
  f: RegistrationFields,
  by: object,
): Promise<void> {
  const given = COLUMNS.filter(([k]) => f[k] !== undefined);
  await db.query(
    `INSERT INTO compliance_registrations (account_id, id, created_by, updated_by${given.map(([, c]) => `, ${c}`).join('')})
     VALUES ($1, $2, $3, $3${given.map(([, , t], i) => `, $${i + 4}${t ? `::${t}` : ''}`).join('')})`,
    [accountId, id, by, ...given.map(([k]) => f[k])],
  );
}

/** Sets the given fields; answers whether the account has that registration. */
export async function updateRegistration(
  db: Queryable,
  accountId: string,
  id: string,
  f: RegistrationFields,
  by: object,
): Promise<boolean> {
  const given = COLUMNS.filter(([k]) => f[k] !== undefined);
  const { rowCount } = await db.query(
    `UPDATE compliance_registrations SET updated_at = now(), updated_by = $3${given
      .map(([, c, t], i) => `, ${c} = $${i + 4}${t ? `::${t}` : ''}`)
      .join('')}
     WHERE account_id = $1 AND id = $2`,
    [accountId, id, by, ...given.map(([k]) => f[k])],
  );
  return (rowCount ?? 0) > 0;
}

export async function findRegistration(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<RegistrationRow | undefined> {
  const { rows } = await db.query<RegistrationRow>(`${SELECT} WHERE r.account_id = $1 AND r.id = $2`, [
    accountId,
    id,
  ]);
  return rows[0];
}

export async function listRegistrations(
  db: Queryable,
  accountId: string,
  kind: string | undefined,
  page: { offset: number; limit: number },
): Promise<{ rows: RegistrationRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db.query<RegistrationRow>(
      `${SELECT} WHERE r.account_id = $1 AND ($2::text IS NULL OR r.kind = $2)
       ORDER BY r.created_at DESC, r.id DESC LIMIT $3 OFFSET $4`,
      [accountId, kind ?? null, page.limit, page.offset],
    ),
    db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM compliance_registrations WHERE account_id = $1 AND ($2::text IS NULL OR kind = $2)',
      [accountId, kind ?? null],
    ),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

export async function deleteRegistration(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM compliance_registrations WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return (rowCount ?? 0) > 0;
}

/** Of `ids`, those that are not the account's phone numbers. */
export async function foreignNumberIds(db: Queryable, accountId: string, ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT x AS id FROM unnest($2::uuid[]) x
      WHERE NOT EXISTS (SELECT 1 FROM phone_numbers p WHERE p.account_id = $1 AND p.id = x)`,
    [accountId, ids],
  );
  return rows.map((r) => r.id);
}

/** Whether the account has this group. */
export async function groupExists(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM groups WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** The kind of the account's registration `id`, or undefined. */
export async function registrationKind(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ kind: string }>(
    'SELECT kind FROM compliance_registrations WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0]?.kind;
}
