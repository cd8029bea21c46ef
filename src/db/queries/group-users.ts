import type { Queryable } from '../client.ts';

/** A console user linked to a group: who they are now, their role in the account, the group's mobile. */
export interface GroupUserRow {
  group_id: string;
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  tac_accepted_at: Date | null;
  mobile: Record<string, unknown> | null;
}

/** The members of the account among `ids` (user ids) and `emails` (lower-case). */
export async function findMembersByIdOrEmail(
  db: Queryable,
  accountId: string,
  ids: string[],
  emails: string[],
): Promise<{ user_id: string; email: string }[]> {
  const { rows } = await db.query<{ user_id: string; email: string }>(
    `SELECT u.id AS user_id, u.email
       FROM account_users m JOIN users u ON u.id = m.user_id
      WHERE m.account_id = $1 AND (u.id = ANY($2::uuid[]) OR u.email = ANY($3::text[]))`,
    [accountId, ids, emails],
  );
  return rows;
}

/** Makes `links` (in order) the group's users. */
export async function replaceGroupUsers(
  db: Queryable,
  accountId: string,
  groupId: string,
  links: { userId: string; mobile: object | null }[],
): Promise<void> {
  await db.query('DELETE FROM group_users WHERE account_id = $1 AND group_id = $2', [accountId, groupId]);
  if (links.length === 0) return;
  await db.query(
    `INSERT INTO group_users (account_id, group_id, user_id, position, mobile)
     SELECT $1, $2, l.user_id, l.position - 1, l.mobile
       FROM unnest($3::uuid[], $4::jsonb[]) WITH ORDINALITY AS l (user_id, mobile, position)`,
    [
      accountId,
      groupId,
      links.map((l) => l.userId),
      links.map((l) => (l.mobile ? JSON.stringify(l.mobile) : null)),
    ],
  );
}

/** The users of each group in `groupIds`, in each group's order. */
export async function usersOfGroups(
  db: Queryable,
  accountId: string,
  groupIds: string[],
): Promise<GroupUserRow[]> {
  if (groupIds.length === 0) return [];
  const { rows } = await db.query<GroupUserRow>(
    `SELECT gu.group_id, u.id AS user_id, u.email, u.first_name, u.last_name, m.role, u.tac_accepted_at,
            gu.mobile
       FROM group_users gu
       JOIN account_users m ON m.account_id = gu.account_id AND m.user_id = gu.user_id
       JOIN users u ON u.id = gu.user_id
      WHERE gu.account_id = $1 AND gu.group_id = ANY($2::uuid[])
      ORDER BY gu.group_id, gu.position`,
    [accountId, groupIds],
  );
  return rows;
}
