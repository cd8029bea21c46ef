/**
 * GET /v1/accounts/:accountId/providers: the provider instances a route may name on this server,
 * exactly the registry's (the built-ins configured, then PROVIDERS), each with its name, kind and
 * whether it is built in, and nothing of its settings (URLs, hosts, ids, passwords, tokens).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { serviceWithAccount } from '../support/suite.ts';

const providersOf = (svc: TestService, acc: TestAccount, query = '', auth = acc.auth) =>
  call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/providers${query}`, { auth });

/** No carrier from the environment the tests run in: each suite says which it configures. */
const NONE = { TWILIO_ACCOUNT_SID: '', SMPP_URL: '', PROVIDERS: '' };

// Values of the settings below, none of which may appear in an answer.
const SECRETS = [
  'smsc-b.internal',
  '2775',
  'sys-b',
  'pw-carrier-b',
  'twilio-2.internal',
  'AC2000',
  'token-tw2',
  'twilio-1.internal',
  'AC1000',
  'token-builtin',
  'smsc-a.internal',
  'sys-a',
  'pw-builtin',
];

describe('GET /v1/accounts/:accountId/providers', () => {
  describe('with TWILIO_*, SMPP_* and two instances of PROVIDERS', () => {
    // No workers run: nothing connects to these addresses.
    const s = serviceWithAccount(
      {},
      {
        env: {
          ...NONE,
          TWILIO_ACCOUNT_SID: 'AC1000',
          TWILIO_AUTH_TOKEN: 'token-builtin',
          TWILIO_BASE_URL: 'https://twilio-1.internal',
          SMPP_URL: 'smpp://smsc-a.internal:2775',
          SMPP_SYSTEM_ID: 'sys-a',
          SMPP_PASSWORD: 'pw-builtin',
          PROVIDERS: JSON.stringify([
            {
              name: 'carrier-b',
              kind: 'smpp',
              url: 'smpp://smsc-b.internal:2775',
              systemId: 'sys-b',
              password: 'pw-carrier-b',
            },
            {
              name: 'tw2',
              kind: 'twilio',
              baseUrl: 'https://twilio-2.internal',
              accountSid: 'AC2000',
              authToken: 'token-tw2',
            },
          ]),
        },
      },
    );

    it('lists the built-ins, then the instances of PROVIDERS, with name, kind and builtIn only', async () => {
      const res = await providersOf(s.svc, s.a);
      assert.equal(res.statusCode, 200, res.body);
      const b = body(res);
      assert.equal(b.success, true);
      assert.deepEqual(b.data, [
        { name: 'simulator', kind: 'simulator', builtIn: true },
        { name: 'twilio', kind: 'twilio', builtIn: true },
        { name: 'smpp', kind: 'smpp', builtIn: true },
        { name: 'carrier-b', kind: 'smpp', builtIn: false },
        { name: 'tw2', kind: 'twilio', builtIn: false },
      ]);
      assert.deepEqual(b.pagination, { limit: 20, offset: 0, hasNext: false, totalCount: 5 });
      // Exactly what the process's registry holds.
      assert.deepEqual(
        b.data.map((p: { name: string }) => p.name),
        s.svc.ctx.providers.names(),
      );
      for (const secret of SECRETS) assert.ok(!res.body.includes(secret), `the answer shows ${secret}`);
    });

    it('pages the list like every list: offset and limit, hasNext and totalCount', async () => {
      const res = await providersOf(s.svc, s.a, '?offset=1&limit=2');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        body(res).data.map((p: { name: string }) => p.name),
        ['twilio', 'smpp'],
      );
      assert.deepEqual(body(res).pagination, { limit: 2, offset: 1, hasNext: true, totalCount: 5 });
      const bad = await providersOf(s.svc, s.a, '?limit=101');
      assert.equal(bad.statusCode, 400);
      assert.equal(body(bad).error.code, 'VAL-001');
    });

    it('names what a route then holds: an instance of PROVIDERS', async () => {
      const created = await call(s.svc.api, 'POST', `/v1/accounts/${s.a.accountId}/routes`, {
        auth: s.a.auth,
        json: { prefix: '4915', providers: [{ provider: 'carrier-b' }, { provider: 'tw2', priority: 2 }] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const listed = body(await providersOf(s.svc, s.a)).data.map((p: { name: string }) => p.name);
      for (const p of body(created).data.providers) assert.ok(listed.includes(p.provider));
    });

    it('answers 401 without a valid token, 403 without routes:read and 403 AUTH-003 for another account', async () => {
      const none = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}/providers`);
      assert.equal(none.statusCode, 401);
      assert.equal(body(none).success, false);
      assert.equal(body(none).error.code, 'AUTH-001');

      const bad = await providersOf(s.svc, s.a, '', { authorization: 'Bearer not-a-token' });
      assert.equal(bad.statusCode, 401);
      assert.equal(body(bad).error.code, 'AUTH-002');

      const noScope = await s.svc.newAccount({ scopes: ['messages:read'] });
      const denied = await providersOf(s.svc, noScope);
      assert.equal(denied.statusCode, 403);
      assert.equal(body(denied).error.code, 'AUTH-004');
      const reader = await s.svc.newAccount({ scopes: ['routes:read'] });
      assert.equal((await providersOf(s.svc, reader)).statusCode, 200);

      const other = await s.svc.newAccount();
      const theirs = await providersOf(s.svc, other, '', s.a.auth);
      assert.equal(theirs.statusCode, 403);
      assert.equal(body(theirs).error.code, 'AUTH-003');
      assert.equal(body(theirs).data, undefined);
    });
  });

  describe('with no carrier configured', () => {
    const s = serviceWithAccount({}, { env: NONE });

    it('lists the simulator alone (twilio and smpp are not configured)', async () => {
      const res = await providersOf(s.svc, s.a);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res).data, [{ name: 'simulator', kind: 'simulator', builtIn: true }]);
      assert.equal(body(res).pagination.totalCount, 1);
    });
  });

  describe('in production (NODE_ENV=production)', () => {
    const s = serviceWithAccount(
      {},
      {
        env: {
          ...NONE,
          NODE_ENV: 'production',
          PROVIDERS: JSON.stringify([
            { name: 'carrier-b', kind: 'smpp', url: 'smpp://smsc-b.internal:2775', systemId: 'sys-b' },
          ]),
        },
      },
    );

    it("lists exactly the registry's instances: the simulator is one there too", async () => {
      const res = await providersOf(s.svc, s.a);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        body(res).data.map((p: { name: string }) => p.name),
        s.svc.ctx.providers.names(),
      );
      assert.deepEqual(body(res).data, [
        { name: 'simulator', kind: 'simulator', builtIn: true },
        { name: 'carrier-b', kind: 'smpp', builtIn: false },
      ]);
    });
  });
});
