import type { Queryable } from '../client.ts';

/** A phone-number group row as stored. */
export interface GroupRow {
  account_id: string;
  id: string;
  name: string;
  notifications: unknown[];
  tags: string[];
  users: unknown[];
  office_hours: Record<string, unknown> | null;
  is_default: boolean;
  use_shared_pool: boolean;
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
    users?: unknown[];
    officeHours?: object | null;
    by: object;
  },
): Promise<GroupRow> {
  const { rows } = await db.query<GroupRow>(
    `INSERT INTO groups (account_id, id, name, is_default, use_shared_pool, notifications, tags, users,
                         office_hours, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING *`,
    [
      accountId,
      g.id,
      g.name,
      g.isDefault,
      g.useSharedPool ?? false,
      JSON.stringify(g.notifications ?? []),
      JSON.stringify(g.tags ?? []),
      JSON.stringify(g.users ?? []),
      g.officeHours ? JSON.stringify(g.officeHours) : null,
      g.by,
    ],
  );
  return rows[0];
}

export async function addNumberToGroup(db: Queryable, accountId: string, groupId: string, phoneNumberId: string) {
  await db.query(
    `INSERT INTO group_numbers (account_id, group_id, phone_number_id) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING`,
    [accountId, groupId, phoneNumberId],
  );
}
