import type { Queryable } from '../client.ts';
import type { PhoneNumberRow } from './phone-numbers.ts';

/** A phone-number group row as stored. */
export interface GroupRow {
  account_id: string;
  id: string;
  name: string;
  notifications: unknown[];
  tags: string[];
  office_hours: Record<string, unknown> | null;
  is_default: boolean;
  use_shared_pool: boolean;
  /** Messages a day (the account's day) its numbers may hand to carriers together; null: no cap (migration 0420). */
  daily_cap: number | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

export async function insertGroup(
  db: Queryable,
  accountId: string,
  g: {
    id: string;
    name: string;
    isDefault: boolean;
    useSharedPool?: boolean;
    notifications?: unknown[];
    tags?: string[];
    officeHours?: object | null;
    dailyCap?: number | null;
    by: object;
  },
): Promise<GroupRow> {
  // daily_cap is named only when set, as in insertPhoneNumber (the migration tests' older schemas).
  const capped = g.dailyCap != null;
  const { rows } = await db.query<GroupRow>(
    `INSERT INTO groups (account_id, id, name, is_default, use_shared_pool, notifications, tags,
                         office_hours, created_by, updated_by${capped ? ', daily_cap' : ''})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9${capped ? ', $10' : ''}) RETURNING *`,
    [
      accountId,
      g.id,
      g.name,
      g.isDefault,
      g.useSharedPool ?? false,
      JSON.stringify(g.notifications ?? []),
      JSON.stringify(g.tags ?? []),
      g.officeHours ? JSON.stringify(g.officeHours) : null,
      g.by,
      ...(capped ? [g.dailyCap] : []),
    ],
  );
  return rows[0];
}

export async function addNumberToGroup(
  db: Queryable,
  accountId: string,
  groupId: string,
  phoneNumberId: string,
) {
  await db.query(
    `INSERT INTO group_numbers (account_id, group_id, phone_number_id) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING`,
    [accountId, groupId, phoneNumberId],
  );
}

export async function getGroup(db: Queryable, accountId: string, id: string): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>('SELECT * FROM groups WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return rows[0];
}

export async function getDefaultGroup(db: Queryable, accountId: string): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>('SELECT * FROM groups WHERE account_id = $1 AND is_default', [
    accountId,
  ]);
  return rows[0];
}

/** A number a group can send from. */
export interface PoolNumberRow {
  id: string;
  number: string;
  provider: string;
  throughput_mps: number;
  verified: boolean;
  country: string;
  supported_destinations: string[];
}

/** The active numbers of one group, oldest first. */
export async function activeGroupNumbers(
  db: Queryable,
  accountId: string,
  groupId: string,
): Promise<PoolNumberRow[]> {
  const { rows } = await db.query<PoolNumberRow>(
    `SELECT p.id, p.number, p.provider, p.throughput_mps, p.verified, p.country, p.supported_destinations
       FROM group_numbers gn
       JOIN phone_numbers p ON p.account_id = gn.account_id AND p.id = gn.phone_number_id
      WHERE gn.account_id = $1 AND gn.group_id = $2 AND p.status = 'active'
      ORDER BY p.created_at, p.id`,
    [accountId, groupId],
  );
  return rows;
}

/**
 * Serialises changes to an account's groups (the one-default rule) for the rest of the
 * transaction, so two concurrent "make this the default" calls cannot both win.
 */
export async function lockAccountGroups(db: Queryable, accountId: string) {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('groups:' || $1))`, [accountId]);
}

/** Takes the default flag off every group of the account but `keepId`. */
export async function clearDefaultGroup(db: Queryable, accountId: string, keepId: string) {
  await db.query(
    'UPDATE groups SET is_default = false, updated_at = now() WHERE account_id = $1 AND is_default AND id <> $2',
    [accountId, keepId],
  );
}

/** A page of an account's groups, oldest first. */
export async function listGroups(
  db: Queryable,
  accountId: string,
  q: { offset: number; limit: number },
): Promise<{ rows: GroupRow[]; totalCount: number }> {
  const [{ rows }, count] = await Promise.all([
    db.query<GroupRow>(
      'SELECT * FROM groups WHERE account_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3',
      [accountId, q.offset, q.limit],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM groups WHERE account_id = $1', [accountId]),
  ]);
  return { rows, totalCount: count.rows[0].n };
}

export async function updateGroup(
  db: Queryable,
  accountId: string,
  id: string,
  g: {
    name: string;
    isDefault: boolean;
    useSharedPool: boolean;
    notifications: unknown[];
    tags: string[];
    officeHours: object | null;
    dailyCap: number | null;
    by: object;
  },
): Promise<GroupRow | undefined> {
  const { rows } = await db.query<GroupRow>(
    `UPDATE groups
        SET name = $3, is_default = $4, use_shared_pool = $5, notifications = $6, tags = $7,
            office_hours = $8, daily_cap = $10, updated_at = now(), updated_by = $9
      WHERE account_id = $1 AND id = $2 RETURNING *`,
    [
      accountId,
      id,
      g.name,
      g.isDefault,
      g.useSharedPool,
      JSON.stringify(g.notifications),
      JSON.stringify(g.tags),
      g.officeHours ? JSON.stringify(g.officeHours) : null,
      g.by,
      g.dailyCap,
    ],
  );
  return rows[0];
}

/** Deletes a group that is not the default; answers whether one was deleted. */
export async function deleteNonDefaultGroup(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM groups WHERE account_id = $1 AND id = $2 AND NOT is_default',
    [accountId, id],
  );
  return (rowCount ?? 0) > 0;
}

/** Makes the group hold exactly these numbers. */
export async function replaceGroupNumbers(
  db: Queryable,
  accountId: string,
  groupId: string,
  phoneNumberIds: string[],
) {
  await db.query(
    'DELETE FROM group_numbers WHERE account_id = $1 AND group_id = $2 AND NOT (phone_number_id = ANY($3::uuid[]))',
    [accountId, groupId, phoneNumberIds],
  );
  await db.query(
    `INSERT INTO group_numbers (account_id, group_id, phone_number_id)
     SELECT $1, $2, unnest($3::uuid[]) ON CONFLICT DO NOTHING`,
    [accountId, groupId, phoneNumberIds],
  );
}

/** Takes a number out of every group. */
export async function removeNumberFromGroups(db: Queryable, accountId: string, phoneNumberId: string) {
  await db.query('DELETE FROM group_numbers WHERE account_id = $1 AND phone_number_id = $2', [
    accountId,
    phoneNumberId,
  ]);
}

/** The `{id, name}` of the groups each of the given numbers belongs to. */
export async function groupsOfNumbers(
  db: Queryable,
  accountId: string,
  phoneNumberIds: string[],
): Promise<{ phone_number_id: string; id: string; name: string }[]> {
  if (phoneNumberIds.length === 0) return [];
  const { rows } = await db.query<{ phone_number_id: string; id: string; name: string }>(
    `SELECT gn.phone_number_id, g.id, g.name
       FROM group_numbers gn JOIN groups g ON g.account_id = gn.account_id AND g.id = gn.group_id
      WHERE gn.account_id = $1 AND gn.phone_number_id = ANY($2::uuid[])
      ORDER BY g.created_at, g.id`,
    [accountId, phoneNumberIds],
  );
  return rows;
}

/** The numbers (any status but released) of each of the given groups, oldest first. */
export async function numbersOfGroups(
  db: Queryable,
  accountId: string,
  groupIds: string[],
): Promise<(PhoneNumberRow & { group_id: string })[]> {
  if (groupIds.length === 0) return [];
  const { rows } = await db.query<PhoneNumberRow & { group_id: string }>(
    `SELECT gn.group_id, p.*
       FROM group_numbers gn JOIN phone_numbers p ON p.account_id = gn.account_id AND p.id = gn.phone_number_id
      WHERE gn.account_id = $1 AND gn.group_id = ANY($2::uuid[]) AND p.status <> 'released'
      ORDER BY p.created_at, p.id`,
    [accountId, groupIds],
  );
  return rows;
}
