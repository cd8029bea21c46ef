import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ensureUser } from '../../src/domain/users/members.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const PASSWORD = 'correct horse battery';

/** The session cookie a response set (name=value), or undefined. */
function cookieOf(res: LightMyRequestResponse): string | undefined {
  const set = res.headers['set-cookie'];
  const line = Array.isArray(set) ? set[0] : set;
  return line?.split(';')[0];
}

describe('console users: sign-in, sessions, roles, invitations, API credentials', () => {
  let svc: TestService;
  let acct: TestAccount;
  let other: TestAccount;
  let adminId: string;

  async function signIn(email: string, password: string) {
    return call(svc.api, 'POST', '/console/api/session', { json: { email, password } });
  }

  async function session(email: string, password = PASSWORD) {
    const res = await signIn(email, password);
    assert.equal(res.statusCode, 200, res.body);
    const cookie = cookieOf(res)!;
    return { cookie, csrf: body(res).data.csrfToken as string, data: body(res).data };
  }

  async function tokenFor(s: { cookie: string; csrf: string }, accountId: string) {
    const res = await call(svc.api, 'POST', '/console/api/token', {
      json: { accountId },
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    return res;
  }

  before(async () => {
    svc = await startTestService();
    acct = await svc.newAccount();
    other = await svc.newAccount();
    ({ userId: adminId } = await ensureUser(
      svc.db,
      acct.accountId,
      {
        email: 'Ada@Example.com',
        password: PASSWORD,
        role: 'Administrator',
        firstName: 'Ada',
        hashCost: svc.config.secretHashCost,
      },
      { id: 'test' },
    ));
  });
  after(() => svc.close());

  it('signs a person in with e-mail and password: an HttpOnly, SameSite=Strict cookie and their accounts', async () => {
    const res = await signIn('ada@example.com', PASSWORD);
    assert.equal(res.statusCode, 200, res.body);
    const set = String(res.headers['set-cookie']);
    assert.match(set, /^sparrow_session=[A-Za-z0-9_-]{20,};/);
    assert.match(set, /HttpOnly/);
    assert.match(set, /SameSite=Strict/);
    assert.match(set, /Path=\/console\/api/);
    // PUBLIC_URL is http://localhost…: no Secure there (it would be refused over plain http).
    assert.doesNotMatch(set, /Secure/);
    const data = body(res).data;
    assert.equal(data.user.email, 'ada@example.com');
    assert.deepEqual(
      data.accounts.map((a: { id: string; role: string }) => [a.id, a.role]),
      [[acct.accountId, 'Administrator']],
    );
    assert.ok(data.csrfToken.length >= 20);
  });

  it('answers a wrong password and an unknown e-mail alike (401 USER-001), and locks after repeated failures', async () => {
    await ensureUser(
      svc.db,
      acct.accountId,
      { email: 'lock@example.com', password: PASSWORD, role: 'Viewer', hashCost: svc.config.secretHashCost },
      {},
    );
    const unknown = await signIn('nobody@example.com', PASSWORD);
    const wrong = await signIn('lock@example.com', 'not the password');
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.statusCode, 401);
    assert.equal(body(unknown).error.code, 'USER-001');
    assert.equal(body(unknown).error.message, body(wrong).error.message);
    for (let i = 0; i < 4; i++) await signIn('lock@example.com', 'not the password');
    const locked = await signIn('lock@example.com', PASSWORD);
    assert.equal(locked.statusCode, 429);
    assert.equal(body(locked).error.code, 'USER-002');
  });

  it('mints API tokens with the role’s scopes, for the user’s own accounts only, behind the CSRF token', async () => {
    const s = await session('ada@example.com');
    const noCsrf = await call(svc.api, 'POST', '/console/api/token', {
      json: { accountId: acct.accountId },
      headers: { cookie: s.cookie },
    });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal(body(noCsrf).error.code, 'USER-004');
    const crossSite = await call(svc.api, 'POST', '/console/api/token', {
      json: { accountId: acct.accountId },
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(body(crossSite).error.code, 'USER-010');
    const notMine = await tokenFor(s, other.accountId);
    assert.equal(notMine.statusCode, 403);
    assert.equal(body(notMine).error.code, 'USER-009');
    const res = await tokenFor(s, acct.accountId);
    assert.equal(res.statusCode, 200, res.body);
    const t = body(res);
    assert.equal(t.token_type, 'bearer');
    assert.ok(t.expires_in <= 300);
    assert.ok(t.scope.split(' ').includes('clients:write'));
    const auth = { authorization: `Bearer ${t.access_token}` };
    // The token opens the account, and audit stamps name the person.
    const created = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/templates`, {
      auth,
      json: { name: 'By Ada', template: 'Hi' },
    });
    assert.equal(created.statusCode, 201, created.body);
    // The interface's `by`: all seven fields, as strings; the person's names among them.
    assert.deepEqual(body(created).data[0].created.by, {
      id: adminId,
      name: 'Ada',
      firstName: 'Ada',
      lastName: '',
      email: 'ada@example.com',
      source: 'console',
      subSource: '',
    });
    // An API client's stamp has the same seven fields, empty where a client has nothing to say.
    const byClient = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/templates`, {
      auth: acct.auth,
      json: { name: 'By a client', template: 'Hi' },
    });
    assert.deepEqual(body(byClient).data[0].created.by, {
      id: acct.clientId,
      name: body(byClient).data[0].created.by.name,
      firstName: '',
      lastName: '',
      email: '',
      source: 'api',
      subSource: '',
    });
    assert.equal((await call(svc.api, 'GET', `/v1/accounts/${other.accountId}`, { auth })).statusCode, 403);
  });

  it('invites a Member by a link shown once; the Member sends and reads but cannot manage credentials, billing or users', async () => {
    const invite = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/users`, {
      auth: acct.auth,
      json: { email: 'max@example.com', role: 'Member' },
    });
    assert.equal(invite.statusCode, 201, invite.body);
    const link: string = body(invite).data.link;
    const token = link.split('/accept/')[1];
    assert.ok(token && token.length > 30);
    const info = await call(svc.api, 'GET', `/console/api/invitations/${token}`);
    assert.equal(body(info).data.email, 'max@example.com');
    const short = await call(svc.api, 'POST', `/console/api/invitations/${token}/accept`, {
      json: { password: 'short' },
    });
    assert.equal(body(short).error.code, 'USER-008');
    const accepted = await call(svc.api, 'POST', `/console/api/invitations/${token}/accept`, {
      json: { password: PASSWORD, firstName: 'Max', acceptTerms: true },
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.ok(cookieOf(accepted));
    const again = await call(svc.api, 'POST', `/console/api/invitations/${token}/accept`, {
      json: { password: PASSWORD },
    });
    assert.equal(again.statusCode, 404);
    assert.equal(body(again).error.code, 'USER-006');

    const s = await session('max@example.com');
    const t = body(await tokenFor(s, acct.accountId));
    assert.equal(t.role, 'Member');
    const auth = { authorization: `Bearer ${t.access_token}` };
    assert.equal(
      (await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/contacts`, { auth })).statusCode,
      200,
    );
    for (const [method, url, json] of [
      ['GET', `/v1/accounts/${acct.accountId}/clients`, undefined],
      ['POST', `/v1/accounts/${acct.accountId}/clients`, { name: 'x' }],
      ['POST', `/v1/accounts/${acct.accountId}/users`, { email: 'z@example.com', role: 'Administrator' }],
    ] as const) {
      const res = await call(svc.api, method, url, { auth, json });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.equal(body(res).error.code, 'AUTH-004');
    }
    const list = body(await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/users`, { auth }));
    const max = list.data.find((u: { email: string }) => u.email === 'max@example.com');
    assert.equal(max.role, 'Member');
    assert.equal(max.firstName, 'Max');
    assert.ok(max.tacAccepted);
    assert.equal(list.pagination.totalCount, list.data.length);
  });

  it('never lets an invitation change an existing user’s password (no takeover by link)', async () => {
    // Another account's administrator invites Ada, who already has a password, and opens the link.
    const inv = body(
      await call(svc.api, 'POST', `/v1/accounts/${other.accountId}/users`, {
        auth: other.auth,
        json: { email: 'ada@example.com', role: 'Viewer' },
      }),
    ).data;
    const token = inv.link.split('/accept/')[1];
    const res = await call(svc.api, 'POST', `/console/api/invitations/${token}/accept`, {
      json: { password: 'attacker chosen password' },
    });
    // Ada's password is asked for (test/http/console-invitation-takeover.test.ts plays the rest).
    assert.equal(res.statusCode, 401);
    assert.equal((await signIn('ada@example.com', 'attacker chosen password')).statusCode, 401);
    const accepted = await call(svc.api, 'POST', `/console/api/invitations/${token}/accept`, {
      json: { password: PASSWORD },
    });
    assert.equal(accepted.statusCode, 200, accepted.body);
    const s = await session('ada@example.com');
    assert.equal(s.data.accounts.length, 2);
  });

  it('keeps the last administrator (409 USER-007) and scopes users to their account (404)', async () => {
    const demote = await call(svc.api, 'PUT', `/v1/accounts/${acct.accountId}/users/${adminId}`, {
      auth: acct.auth,
      json: { role: 'Member' },
    });
    assert.equal(demote.statusCode, 409);
    assert.equal(body(demote).error.code, 'USER-007');
    const remove = await call(svc.api, 'DELETE', `/v1/accounts/${acct.accountId}/users/${adminId}`, {
      auth: acct.auth,
    });
    assert.equal(body(remove).error.code, 'USER-007');
    // Ada is only a Viewer of the other account: that account's admin cannot touch her role here.
    const elsewhere = await call(svc.api, 'GET', `/v1/accounts/${other.accountId}/users/${adminId}`, {
      auth: acct.auth,
    });
    assert.equal(elsewhere.statusCode, 403);
    const notMember = await call(
      svc.api,
      'GET',
      `/v1/accounts/${acct.accountId}/users/00000000-0000-7000-8000-000000000000`,
      {
        auth: acct.auth,
      },
    );
    assert.equal(notMember.statusCode, 404);
    assert.equal(
      (await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/users/nope`, { auth: acct.auth }))
        .statusCode,
      404,
    );
  });

  it('validates invitations and roles (400), and refuses without a token (401)', async () => {
    for (const json of [
      { email: 'x', role: 'Member' },
      { email: 'x@example.com', role: 'Owner' },
      { email: 'x@example.com' },
    ]) {
      const res = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/users`, {
        auth: acct.auth,
        json,
      });
      assert.equal(res.statusCode, 400, JSON.stringify(json));
    }
    assert.equal((await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/users`)).statusCode, 401);
    assert.equal((await call(svc.api, 'GET', '/console/api/session')).statusCode, 401);
    const forged = await call(svc.api, 'GET', '/console/api/session', {
      headers: { cookie: 'sparrow_session=forged' },
    });
    assert.equal(body(forged).error.code, 'USER-003');
  });

  it('creates, lists and revokes API clients; the secret is shown once and scopes never exceed the caller’s', async () => {
    const limited = await svc.newAccount({ scopes: ['clients:read', 'clients:write', 'contacts:read'] });
    const tooMuch = await call(svc.api, 'POST', `/v1/accounts/${limited.accountId}/clients`, {
      auth: limited.auth,
      json: { name: 'greedy', scopes: ['contacts:read', 'billing:write'] },
    });
    assert.equal(tooMuch.statusCode, 403);
    const created = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/clients`, {
      auth: acct.auth,
      json: { name: 'Shop integration', scopes: ['messages:send', 'contacts:read'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const c = body(created).data;
    assert.match(c.secret, /^cs_/);
    const tok = await call(svc.api, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret },
    });
    assert.equal(tok.statusCode, 200);
    const list = body(
      await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/clients`, { auth: acct.auth }),
    );
    const listed = list.data.find((x: { id: string }) => x.id === c.id);
    assert.deepEqual(listed.scopes, ['messages:send', 'contacts:read']);
    assert.equal(listed.secret, undefined);
    assert.ok(!JSON.stringify(list).includes(c.secret));
    const foreign = await call(svc.api, 'DELETE', `/v1/accounts/${other.accountId}/clients/${c.id}`, {
      auth: other.auth,
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(body(foreign).error.code, 'CLIENT-001');
    const revoked = await call(svc.api, 'DELETE', `/v1/accounts/${acct.accountId}/clients/${c.id}`, {
      auth: acct.auth,
    });
    assert.equal(body(revoked).data.revoked, true);
    const after = await call(svc.api, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret },
    });
    assert.equal(after.statusCode, 401);
  });

  it('signs out: the cookie no longer opens a session', async () => {
    const s = await session('ada@example.com');
    const out = await call(svc.api, 'DELETE', '/console/api/session', {
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf },
    });
    assert.equal(out.statusCode, 200);
    const res = await call(svc.api, 'GET', '/console/api/session', { headers: { cookie: s.cookie } });
    assert.equal(res.statusCode, 401);
  });

  it('refuses more failed sign-ins a minute from one address than CONSOLE_SIGN_IN_FAILURES_PER_MINUTE (429 RATE-001)', async () => {
    const strict = await startTestService();
    try {
      strict.config.console.signInFailuresPerMinute = 3;
      // The budget is read when the routes are built: a service built with the stricter config.
      const { buildApiApp } = await import('../../src/http/app.ts');
      const limited = await buildApiApp(strict.ctx);
      try {
        const codes: number[] = [];
        for (let i = 0; i < 5; i++) {
          const res = await call(limited, 'POST', '/console/api/session', {
            json: { email: `nobody${i}@example.com`, password: 'whatever it is' },
          });
          codes.push(res.statusCode);
        }
        assert.deepEqual(codes, [401, 401, 401, 429, 429]);
      } finally {
        await limited.close();
      }
    } finally {
      await strict.close();
    }
  });
});
