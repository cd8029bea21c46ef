import { createHash } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import {
  findSession,
  findUser,
  findUserByEmail,
  insertSession,
  membershipsOf,
  noteFailedSignIn,
  noteSignedIn,
  revokeSession,
  type UserRow,
} from '../../db/queries/users.ts';
import { fail } from '../../errors.ts';
import { randomToken } from '../../util/ids.ts';
import type { TokenService } from '../auth/tokens.ts';
import { checkPassword } from './passwords.ts';
import { scopesFor } from './roles.ts';

/** The cookie that carries a console session (HttpOnly, SameSite=Strict, Path=/console). */
export const SESSION_COOKIE = 'sparrow_session';
/** Console access tokens are short: removing a member takes effect within this time. */
export const CONSOLE_TOKEN_SECONDS = 300;

/** A session token is stored only as its SHA-256. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** What the console learns about the signed-in person. */
export async function describeSession(db: Db, user: UserRow, csrf: string) {
  return {
    user: {
      id: user.id,
      email: user.email,
      firstName: user.first_name,
      lastName: user.last_name,
      ...(user.tac_accepted_at ? { tacAccepted: user.tac_accepted_at.toISOString() } : {}),
    },
    accounts: (await membershipsOf(db, user.id)).map((m) => ({
      id: m.account_id,
      name: m.name,
      role: m.role,
    })),
    csrfToken: csrf,
  };
}

/** Opens a session for a user (after a sign-in or an accepted invitation): answers the cookie token. */
export async function openSession(
  db: Db,
  config: Config,
  userId: string,
): Promise<{ token: string; csrf: string }> {
  const token = randomToken(32);
  const csrf = randomToken(24);
  await insertSession(db, { id: tokenHash(token), userId, csrf, hours: config.console.sessionHours });
  return { token, csrf };
}

/**
 * Checks an e-mail and password. A wrong one counts against the user; at CONSOLE_MAX_FAILED_SIGN_INS
 * in a row the user is locked for CONSOLE_LOCK_MINUTES (USER-002, even with the right password).
 * An unknown e-mail answers exactly as a wrong password (USER-001), after the same work.
 */
export async function signIn(db: Db, config: Config, email: string, password: string) {
  const user = await findUserByEmail(db, email.trim().toLowerCase());
  if (user?.locked_until && user.locked_until > new Date()) fail('USER-002');
  const ok = await checkPassword(password, user?.password_hash ?? null);
  if (!user || !ok) {
    if (user)
      await noteFailedSignIn(db, user.id, config.console.maxFailedSignIns, config.console.lockMinutes);
    fail('USER-001');
  }
  await noteSignedIn(db, user.id);
  const { token, csrf } = await openSession(db, config, user.id);
  return { token, session: await describeSession(db, user, csrf) };
}

/** The session a cookie token opens (USER-003 when none). */
export async function currentSession(db: Db, token: string | undefined) {
  if (!token || token.length > 200) fail('USER-003');
  const session = await findSession(db, tokenHash(token));
  if (!session) fail('USER-003');
  const user = await findUser(db, session.user_id);
  if (!user) fail('USER-003');
  return { session, user };
}

export async function signOut(db: Db, token: string): Promise<void> {
  await revokeSession(db, tokenHash(token));
}

/**
 * An access token for one of the user's accounts, with the scopes of the user's role there: the
 * console calls the public API with it, exactly as an integration does. USER-009 when the user is
 * not (or no longer) a member.
 */
export async function consoleToken(db: Db, tokens: TokenService, user: UserRow, accountId: string) {
  const membership = (await membershipsOf(db, user.id)).find((m) => m.account_id === accountId);
  if (!membership) fail('USER-009');
  const scopes = scopesFor(membership.role);
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ') || user.email;
  const accessToken = await tokens.issue(
    { id: `user:${user.id}`, name, accountId, email: user.email },
    scopes,
    CONSOLE_TOKEN_SECONDS,
  );
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: CONSOLE_TOKEN_SECONDS,
    scope: scopes.join(' '),
    role: membership.role,
  };
}
