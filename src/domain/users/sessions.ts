import { createHash } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import {
  findSession,
  findUser,
  insertDevice,
  insertSession,
  membershipsOf,
  noteSignedIn,
  revokeSession,
  type UserRow,
  useDevice,
} from '../../db/queries/users.ts';
import { fail } from '../../errors.ts';
import { randomToken } from '../../util/ids.ts';
import type { TokenService } from '../auth/tokens.ts';
import { scopesFor } from './roles.ts';
import type { SignInGuard } from './sign-in-guard.ts';

/** The cookie that carries a console session (HttpOnly, SameSite=Strict, Path=/console). */
export const SESSION_COOKIE = 'sparrow_session';
/** The cookie that names a device a person signed in from (SignInGuard trusts it for that person). */
export const DEVICE_COOKIE = 'sparrow_device';
/** How long a device is remembered after its last sign-in, in days (the cookie's Max-Age). */
export const DEVICE_DAYS = 180;
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
 * Signs a person in with e-mail and password, checked by `guard` (per-address and per-e-mail
 * limits, no scrypt for unknown e-mails, a device of the person's trusted: SignInGuard); a success
 * ends the user's failure streak. Answers the session's cookie token and the device's.
 */
export async function signIn(
  db: Db,
  config: Config,
  guard: SignInGuard,
  input: { email: string; password: string; ip: string; device?: string },
) {
  const device = input.device && input.device.length <= 200 ? input.device : undefined;
  const user = await guard.verify(input.email, input.password, input.ip, device && tokenHash(device));
  await noteSignedIn(db, user.id);
  const { token, csrf } = await openSession(db, config, user.id);
  return {
    token,
    device: await rememberDevice(db, user.id, device),
    session: await describeSession(db, user, csrf),
  };
}

/**
 * The device cookie to set after a person's successful sign-in: the one presented when it is
 * already theirs, else a new one (stored only as its SHA-256).
 */
export async function rememberDevice(db: Db, userId: string, presented?: string): Promise<string> {
  if (presented && presented.length <= 200 && (await useDevice(db, tokenHash(presented))) === userId)
    return presented;
  const token = `dev_${randomToken(32)}`;
  await insertDevice(db, tokenHash(token), userId);
  return token;
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
    {
      id: `user:${user.id}`,
      name,
      accountId,
      email: user.email,
      firstName: user.first_name,
      lastName: user.last_name,
    },
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
