import type { Role } from '../../schemas/enums.ts';
import type { Queryable } from '../client.ts';

export type { Role };

export interface UserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  password_hash: string | null;
  tac_accepted_at: Date | null;
  failed_sign_ins: number;
  locked_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A user as a member of one account. */
export interface MemberRow extends UserRow {
  account_id: string;
  role: Role;
  joined_at: Date;
  created_by: Record<string, unknown>;
  updated_by: Record<string, unknown>;
  member_updated_at: Date;
}

export interface InvitationRow {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  kind: 'invite' | 'reset';
  created_at: Date;
  created_by: Record<string, unknown>;
  expires_at: Date;
  accepted_at: Date | null;
  email_status: InvitationEmailStatus;
  email_error: string | null;
  emailed_at: Date | null;
}

/** What became of an invitation's e-mail (migration 0352). */
export type InvitationEmailStatus = 'none' | 'sending' | 'sent' | 'failed';

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE email = $1', [email]);
  return rows[0];
}

export async function findUser(db: Queryable, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
  return rows[0];
}

/** Creates the user for an e-mail, or answers the existing one (names kept). */
export async function upsertUser(
  db: Queryable,
  u: { email: string; firstName?: string; lastName?: string },
): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (email, first_name, last_name) VALUES ($1, coalesce($2, ''), coalesce($3, ''))
     ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING *`,
    [u.email, u.firstName ?? null, u.lastName ?? null],
  );
  return rows[0];
}

export async function setPassword(
  db: Queryable,
  userId: string,
  p: { hash: string; firstName?: string; lastName?: string; acceptTerms?: boolean },
): Promise<void> {
  await db.query(
    `UPDATE users SET password_hash = $2, password_changed_at = now(), failed_sign_ins = 0, locked_until = NULL,
            first_name = coalesce($3, first_name), last_name = coalesce($4, last_name),
            tac_accepted_at = CASE WHEN $5 THEN coalesce(tac_accepted_at, now()) ELSE tac_accepted_at END,
            updated_at = now()
      WHERE id = $1`,
    [userId, p.hash, p.firstName ?? null, p.lastName ?? null, p.acceptTerms ?? false],
  );
  // A new password ends every session that the old one opened.
  await db.query('UPDATE user_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [
    userId,
  ]);
}

/**
 * Counts a failed sign-in; locks the user for `lockMinutes` once `maxFailures` is reached in a row.
 * Once a lock has ended the streak starts again (this failure is the first of a new one), so one
 * more failure after a lock does not lock again.
 */
export async function noteFailedSignIn(
  db: Queryable,
  userId: string,
  maxFailures: number,
  lockMinutes: number,
): Promise<void> {
  await db.query(
    `UPDATE users SET failed_sign_ins = CASE WHEN locked_until <= now() THEN 1 ELSE failed_sign_ins + 1 END,
            locked_until = CASE WHEN (CASE WHEN locked_until <= now() THEN 1 ELSE failed_sign_ins + 1 END) >= $2
                                THEN now() + make_interval(mins => $3)
                                WHEN locked_until <= now() THEN NULL ELSE locked_until END
      WHERE id = $1`,
    [userId, maxFailures, lockMinutes],
  );
}

export async function noteSignedIn(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE users SET failed_sign_ins = 0, locked_until = NULL WHERE id = $1', [userId]);
}

export async function membershipsOf(
  db: Queryable,
  userId: string,
): Promise<{ account_id: string; name: string; role: Role }[]> {
  const { rows } = await db.query(
    `SELECT m.account_id, a.name, m.role FROM account_users m JOIN accounts a ON a.id = m.account_id
      WHERE m.user_id = $1 ORDER BY a.name, m.account_id`,
    [userId],
  );
  return rows;
}

export async function findMember(
  db: Queryable,
  accountId: string,
  userId: string,
): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `SELECT u.*, m.account_id, m.role, m.created_at AS joined_at, m.created_by, m.updated_by, m.updated_at AS member_updated_at
       FROM account_users m JOIN users u ON u.id = m.user_id
      WHERE m.account_id = $1 AND m.user_id = $2`,
    [accountId, userId],
  );
  return rows[0];
}

/** Whether a person is a member of the account, locking the membership (FOR KEY SHARE) until the transaction ends. */
export async function lockMember(db: Queryable, accountId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM account_users WHERE account_id = $1 AND user_id = $2 FOR KEY SHARE',
    [accountId, userId],
  );
  return (rowCount ?? 0) > 0;
}

export async function listMembers(
  db: Queryable,
  accountId: string,
  offset: number,
  limit: number,
): Promise<{ rows: MemberRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db.query<MemberRow>(
      `SELECT u.*, m.account_id, m.role, m.created_at AS joined_at, m.created_by, m.updated_by, m.updated_at AS member_updated_at
         FROM account_users m JOIN users u ON u.id = m.user_id
        WHERE m.account_id = $1 ORDER BY u.email OFFSET $2 LIMIT $3`,
      [accountId, offset, limit],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM account_users WHERE account_id = $1', [
      accountId,
    ]),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

/** Adds a member, or changes the role of an existing one. */
export async function putMember(
  db: Queryable,
  accountId: string,
  userId: string,
  role: Role,
  by: object,
): Promise<void> {
  await db.query(
    `INSERT INTO account_users (account_id, user_id, role, created_by, updated_by) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (account_id, user_id) DO UPDATE SET role = EXCLUDED.role, updated_at = now(), updated_by = EXCLUDED.updated_by`,
    [accountId, userId, role, JSON.stringify(by)],
  );
}

export async function removeMember(db: Queryable, accountId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM account_users WHERE account_id = $1 AND user_id = $2', [
    accountId,
    userId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** How many administrators an account has (locked FOR UPDATE: the last one cannot be removed). */
export async function countAdministrators(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT user_id FROM account_users WHERE account_id = $1 AND role = 'Administrator' FOR UPDATE`,
    [accountId],
  );
  return rows.length;
}

export async function insertSession(
  db: Queryable,
  s: { id: string; userId: string; csrf: string; hours: number },
): Promise<void> {
  await db.query(
    `INSERT INTO user_sessions (id, user_id, csrf, expires_at) VALUES ($1, $2, $3, now() + make_interval(hours => $4))`,
    [s.id, s.userId, s.csrf, s.hours],
  );
}

export async function findSession(
  db: Queryable,
  id: string,
): Promise<{ id: string; user_id: string; csrf: string; expires_at: Date } | undefined> {
  const { rows } = await db.query(
    'SELECT id, user_id, csrf, expires_at FROM user_sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > now()',
    [id],
  );
  return rows[0];
}

export async function revokeSession(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE user_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
}

export async function insertInvitation(
  db: Queryable,
  i: {
    id: string;
    accountId: string;
    email: string;
    role: Role;
    kind: 'invite' | 'reset';
    hours: number;
    by: object;
    /** `sending` when it is to be e-mailed, else `none` (the default). */
    emailStatus?: 'none' | 'sending';
  },
): Promise<InvitationRow> {
  const { rows } = await db.query<InvitationRow>(
    `INSERT INTO user_invitations (id, account_id, email, role, kind, created_by, expires_at, email_status)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7), $8) RETURNING *`,
    [i.id, i.accountId, i.email, i.role, i.kind, JSON.stringify(i.by), i.hours, i.emailStatus ?? 'none'],
  );
  return rows[0];
}

/** Records what the SMTP server made of an invitation's e-mail. */
export async function setInvitationEmailed(
  db: Queryable,
  accountId: string,
  id: string,
  outcome: { status: 'sent' | 'failed'; error?: string },
): Promise<void> {
  await db.query(
    `UPDATE user_invitations SET email_status = $3, email_error = $4,
            emailed_at = CASE WHEN $3 = 'sent' THEN now() END
      WHERE account_id = $1 AND id = $2`,
    [accountId, id, outcome.status, outcome.error ?? null],
  );
}

/** Takes an open invitation (row-locked, so it is accepted once). */
export async function takeInvitation(db: Queryable, id: string): Promise<InvitationRow | undefined> {
  const { rows } = await db.query<InvitationRow>(
    `SELECT * FROM user_invitations WHERE id = $1 AND accepted_at IS NULL AND expires_at > now() FOR UPDATE`,
    [id],
  );
  return rows[0];
}

export async function markInvitationAccepted(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE user_invitations SET accepted_at = now() WHERE id = $1', [id]);
}

/** A page of the account's open invitations (not accepted, not expired; password resets left out), newest first. */
export async function listOpenInvitations(
  db: Queryable,
  accountId: string,
  offset: number,
  limit: number,
): Promise<{ rows: InvitationRow[]; total: number }> {
  const where = `account_id = $1 AND kind = 'invite' AND accepted_at IS NULL AND expires_at > now()`;
  const [items, count] = await Promise.all([
    db.query<InvitationRow>(
      `SELECT * FROM user_invitations WHERE ${where} ORDER BY created_at DESC, id OFFSET $2 LIMIT $3`,
      [accountId, offset, limit],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM user_invitations WHERE ${where}`, [accountId]),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

/** Deletes an open invitation of the account (its link stops working); answers it, or undefined. */
export async function deleteOpenInvitation(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<InvitationRow | undefined> {
  const { rows } = await db.query<InvitationRow>(
    `DELETE FROM user_invitations
      WHERE account_id = $1 AND id = $2 AND kind = 'invite' AND accepted_at IS NULL AND expires_at > now()
      RETURNING *`,
    [accountId, id],
  );
  return rows[0];
}

/** Devices kept per person (the most recently used): an older one is forgotten. */
const DEVICES_PER_USER = 20;

/** Records a console device (its cookie's hash) of a person, forgetting their least recently used beyond DEVICES_PER_USER. */
export async function insertDevice(db: Queryable, id: string, userId: string): Promise<void> {
  await db.query(
    `WITH ins AS (INSERT INTO console_devices (id, user_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING)
     DELETE FROM console_devices WHERE user_id = $2 AND id IN (
       SELECT id FROM console_devices WHERE user_id = $2 ORDER BY last_used_at DESC OFFSET $3)`,
    [id, userId, DEVICES_PER_USER - 1],
  );
}

/** The person a console device belongs to (and notes its use), or undefined. */
export async function useDevice(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    'UPDATE console_devices SET last_used_at = now() WHERE id = $1 RETURNING user_id',
    [id],
  );
  return rows[0]?.user_id;
}
