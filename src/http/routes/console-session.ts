import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findUser } from '../../db/queries/users.ts';
import { acceptInvitation, describeInvitation } from '../../domain/users/invitations.ts';
import {
  consoleToken,
  currentSession,
  DEVICE_COOKIE,
  DEVICE_DAYS,
  describeSession,
  openSession,
  rememberDevice,
  SESSION_COOKIE,
  signIn,
  signOut,
} from '../../domain/users/sessions.ts';
import { SignInGuard } from '../../domain/users/sign-in-guard.ts';
import { fail } from '../../errors.ts';
import { Envelope, errorResponses, Success } from '../../schemas/common.ts';
import {
  AcceptInvitationBody,
  ConsoleSession,
  ConsoleToken,
  ConsoleTokenBody,
  InvitationInfo,
  InvitationToken,
  SignInBody,
} from '../../schemas/users.ts';
import { ok } from '../respond.ts';
import type { App } from '../types.ts';

const PATH = '/console/api';
const tags = ['console'];

function cookieValue(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** `Secure` unless the console is reached over plain http on this machine (development). */
function secureCookie(publicUrl: string): boolean {
  const u = new URL(publicUrl);
  return !(u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname));
}

function cookieLine(app: FastifyInstance, name: string, value: string, maxAgeSeconds: number): string {
  const parts = [
    `${name}=${value}`,
    `Path=${PATH}`,
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (secureCookie(app.ctx.config.publicUrl)) parts.push('Secure');
  return parts.join('; ');
}

/** Sets the session cookie, and with `device` the cookie that remembers the device (DEVICE_DAYS). */
function setSessionCookie(
  app: FastifyInstance,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
  device?: string,
) {
  const lines = [cookieLine(app, SESSION_COOKIE, token, maxAgeSeconds)];
  if (device) lines.push(cookieLine(app, DEVICE_COOKIE, device, DEVICE_DAYS * 86_400));
  reply.header('set-cookie', lines.length === 1 ? lines[0] : lines);
}

/**
 * Requests that change a session must come from the console's own pages: a browser names the
 * other site in `Sec-Fetch-Site` / `Origin` (USER-010), and a signed-in request must carry the
 * session's CSRF token in `X-CSRF-Token` (USER-004; SameSite=Strict already keeps the cookie off
 * cross-site requests: this is the second lock).
 */
function sameSite(req: FastifyRequest) {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') fail('USER-010');
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      fail('USER-010');
    }
    if (host !== req.headers.host) fail('USER-010');
  }
}

async function signedIn(app: FastifyInstance, req: FastifyRequest, { csrf }: { csrf: boolean }) {
  const found = await currentSession(app.ctx.db, cookieValue(req, SESSION_COOKIE));
  if (csrf) {
    sameSite(req);
    if (req.headers['x-csrf-token'] !== found.session.csrf) fail('USER-004');
  }
  return found;
}

/**
 * The console's sign-in: e-mail and password → a session cookie (HttpOnly, SameSite=Strict,
 * Secure outside localhost, Path=/console/api), and short access tokens for the API minted from it
 * with the scopes of the user's role. Invitation links are accepted here too.
 */
export async function consoleSessionRoutes(app: App) {
  const cfg = app.ctx.config.console;
  // Password checks (sign-ins and invitations accepted as an existing user): per-address and
  // per-e-mail limits, no scrypt for unknown e-mails.
  const guard = new SignInGuard(app.ctx.db, cfg, app.ctx.config.secretHashCost);

  app.post(
    `${PATH}/session`,
    {
      schema: {
        tags,
        summary: 'Sign in to the console',
        description:
          'E-mail and password. Sets the session cookie and answers the user, their accounts and the CSRF token. ' +
          'A wrong e-mail or password → 401 USER-001 (an unknown e-mail answers alike, in the same time); after ' +
          'CONSOLE_MAX_FAILED_SIGN_INS failures in a row the e-mail is locked for CONSOLE_LOCK_MINUTES for the addresses ' +
          'that failed on it (429 USER-002, alike for an unknown e-mail); more than CONSOLE_SIGN_IN_FAILURES_PER_MINUTE ' +
          'failures a minute from one address → 429 RATE-001.',
        body: SignInBody,
        response: { 200: Envelope(ConsoleSession), ...errorResponses() },
      },
    },
    async (req, reply) => {
      sameSite(req);
      const { token, device, session } = await signIn(app.ctx.db, app.ctx.config, guard, {
        email: req.body.email,
        password: req.body.password,
        ip: req.ip,
        device: cookieValue(req, DEVICE_COOKIE),
      });
      setSessionCookie(app, reply, token, cfg.sessionHours * 3600, device);
      return ok(session);
    },
  );

  app.get(
    `${PATH}/session`,
    {
      schema: {
        tags,
        summary: 'The signed-in console user',
        description:
          'From the session cookie: the user, their accounts and roles, the CSRF token. 401 USER-003 without one.',
        response: { 200: Envelope(ConsoleSession), ...errorResponses() },
      },
    },
    async (req) => {
      const { session, user } = await signedIn(app, req, { csrf: false });
      return ok(await describeSession(app.ctx.db, user, session.csrf));
    },
  );

  app.delete(
    `${PATH}/session`,
    {
      schema: {
        tags,
        summary: 'Sign out of the console',
        description: 'Ends the session (needs `X-CSRF-Token`) and clears the cookie.',
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req, reply) => {
      await signedIn(app, req, { csrf: true });
      await signOut(app.ctx.db, cookieValue(req, SESSION_COOKIE)!);
      setSessionCookie(app, reply, '', 0);
      return { success: true as const };
    },
  );

  app.post(
    `${PATH}/token`,
    {
      schema: {
        tags,
        summary: 'An API access token for one of the user’s accounts',
        description:
          'Needs the session cookie and `X-CSRF-Token`. The token lasts 5 minutes and carries the scopes of the ' +
          "user's role in that account; the console calls the public API with it. 403 USER-009 when the user is not " +
          'a member of the account.',
        body: ConsoleTokenBody,
        response: { 200: ConsoleToken, ...errorResponses() },
      },
    },
    async (req) => {
      const { user } = await signedIn(app, req, { csrf: true });
      return consoleToken(app.ctx.db, app.ctx.tokens, user, req.body.accountId);
    },
  );

  app.get(
    `${PATH}/invitations/:token`,
    {
      schema: {
        tags,
        summary: 'What an invitation link is for',
        description:
          'The account, e-mail, role and kind (`invite` or `reset`); nothing about whether the e-mail already has a ' +
          'password. 404 USER-006 when unknown, used or expired.',
        params: InvitationToken,
        response: { 200: Envelope(InvitationInfo), ...errorResponses() },
      },
    },
    async (req) => ok(await describeInvitation(app.ctx.db, req.params.token)),
  );

  app.post(
    `${PATH}/invitations/:token/accept`,
    {
      schema: {
        tags,
        summary: 'Accept an invitation (or a password reset link)',
        description:
          'Once. An e-mail that already has a Sparrow password must give it in `password`: it is checked as a sign-in ' +
          '(401 USER-001 when wrong or missing, the limits and lock of `POST /console/api/session`) and never changed. ' +
          'An e-mail with none sets `password` (12–128 characters, 400 USER-008), unless `hasPassword: true` says it is ' +
          'an existing one (then checked as a sign-in). A reset link sets `password`. Signs the person in (session ' +
          'cookie) and answers the session.',
        params: InvitationToken,
        body: AcceptInvitationBody,
        response: { 200: Envelope(ConsoleSession), ...errorResponses() },
      },
    },
    async (req, reply) => {
      sameSite(req);
      const presented = cookieValue(req, DEVICE_COOKIE);
      const userId = await acceptInvitation(app.ctx.db, guard, req.params.token, req.body, req.ip, presented);
      const user = (await findUser(app.ctx.db, userId))!;
      const { token, csrf } = await openSession(app.ctx.db, app.ctx.config, userId);
      const device = await rememberDevice(app.ctx.db, userId, presented);
      setSessionCookie(app, reply, token, cfg.sessionHours * 3600, device);
      return ok(await describeSession(app.ctx.db, user, csrf));
    },
  );
}
