import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';
import { paymentsProvider } from '../../src/providers/payments/index.ts';
import { MAX_COMMITMENT } from '../../src/schemas/plans.ts';
import { securityNotes } from '../../src/security-notes.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { serviceWithAccount } from '../support/suite.ts';

const ORDER = {
  plan: 'growth',
  commitment: 150,
  frequency: 'monthly',
  name: 'Ada',
  email: 'ada@example.com',
};
const URLS = 'successUrl=https%3A%2F%2Fapp.example%2Fpaid&cancelUrl=https%3A%2F%2Fapp.example%2Fcancelled';
const SECRET = 'a-long-simulator-secret';

const checkout = (svc: TestService, acc: TestAccount, json: unknown = ORDER) =>
  call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/checkout?${URLS}`, { auth: acc.auth, json });
const balance = async (svc: TestService, acc: TestAccount) =>
  body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth })).data.balance;
const ourNumber = async (svc: TestService, acc: TestAccount) =>
  (
    await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' LIMIT 1`,
      [acc.accountId],
    )
  ).rows[0].number as string;
const storedFrom = async (svc: TestService, acc: TestAccount, from: string) =>
  (
    await svc.db.query(
      'SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND from_number = $2 AND NOT outgoing',
      [acc.accountId, from],
    )
  ).rows[0].n as number;

describe('configuration of the production switch (NODE_ENV)', () => {
  it('keeps the simulator open and simulated payments on in development (the default)', () => {
    const c = loadConfig({});
    assert.equal(c.production, false);
    assert.equal(c.simulatorEndpoints, true);
    assert.equal(c.payments.provider, 'simulator');
    assert.ok(securityNotes(c).some((l) => /simulator endpoints OPEN/.test(l)));
  });

  it('closes the simulator and payments in production unless chosen explicitly', () => {
    const c = loadConfig({ NODE_ENV: 'production' });
    assert.equal(c.production, true);
    assert.equal(c.simulatorEndpoints, false);
    assert.equal(c.payments.provider, 'none');
    assert.ok(securityNotes(c).some((l) => /simulator endpoints closed/.test(l)));
    assert.equal(
      loadConfig({ NODE_ENV: 'production', PAYMENTS_PROVIDER: 'simulator' }).payments.provider,
      'simulator',
    );
  });

  it('refuses SIMULATOR_ENDPOINTS=true in production without SIMULATOR_SECRET, in one line', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', SIMULATOR_ENDPOINTS: 'true' }),
      (err: Error) =>
        err instanceof ConfigError && /SIMULATOR_SECRET/.test(err.message) && !err.message.includes('\n'),
    );
    const c = loadConfig({ NODE_ENV: 'production', SIMULATOR_ENDPOINTS: 'true', SIMULATOR_SECRET: SECRET });
    assert.equal(c.simulatorEndpoints, true);
  });

  it('has no simulator to charge a saved simulator payment method unless the simulator is configured', () => {
    const none = loadConfig({ NODE_ENV: 'production' });
    for (const name of [undefined, 'simulator'] as const) {
      assert.throws(
        () => paymentsProvider(none, name),
        (err: Error) => err instanceof AppError && err.code === 'BILL-006',
      );
    }
    assert.equal(paymentsProvider(loadConfig({}), 'simulator').name, 'simulator');
  });

  it('reads TRUST_PROXY as off, on, or proxy addresses, and refuses anything else', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy, '10.0.0.0/8, loopback');
    for (const bad of ['maybe', '10.0.0.0/8/1', '3']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: bad }), ConfigError, bad);
    }
  });
});

describe('NODE_ENV=production, default settings', () => {
  const s = serviceWithAccount({}, { env: { NODE_ENV: 'production' } });

  it('does not mount the simulator endpoints (404), so a forged STOP stores nothing', async () => {
    const from = '+12015550177';
    const sent = await call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: await ourNumber(s.svc, s.a), text: 'STOP' },
    });
    assert.equal(sent.statusCode, 404);
    assert.equal(body(sent).error.code, 'HTTP-404');
    assert.equal(await storedFrom(s.svc, s.a, from), 0);
    const calls = await call(s.svc.externals, 'POST', '/v1/providers/simulator/calls', {
      json: { from, to: await ourNumber(s.svc, s.a) },
    });
    assert.equal(calls.statusCode, 404);
    for (const path of ['/checkout/cs_sim_x', '/checkout/cs_sim_x/pay', '/checkout/cs_sim_x/cancel']) {
      const res = await call(s.svc.externals, path.endsWith('x') ? 'GET' : 'POST', path);
      assert.equal(res.statusCode, 404, path);
    }
  });

  it('answers checkout with 409 BILL-006 naming PAYMENTS_PROVIDER, and credits nothing', async () => {
    const before = await balance(s.svc, s.a);
    const res = await checkout(s.svc, s.a);
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(body(res).error.code, 'BILL-006');
    assert.match(body(res).error.message, /PAYMENTS_PROVIDER/);
    assert.equal(await balance(s.svc, s.a), before);
  });

  it('still serves the signed carrier callbacks and hosted pages', async () => {
    const res = await call(s.svc.externals, 'POST', '/v1/providers/twilio/inbound', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'From=%2B12015550100&To=%2B12015550101&Body=hi&MessageSid=SM1',
    });
    assert.equal(res.statusCode, 403, 'mounted, and refusing an unsigned callback');
    assert.equal(
      (await call(s.svc.externals, 'GET', '/f/01937c1e-0000-7000-8000-00000000abcd')).statusCode,
      404,
    );
  });
});

describe('NODE_ENV=production with SIMULATOR_ENDPOINTS=true and PAYMENTS_PROVIDER=simulator', () => {
  const env = {
    NODE_ENV: 'production',
    SIMULATOR_ENDPOINTS: 'true',
    SIMULATOR_SECRET: SECRET,
    PAYMENTS_PROVIDER: 'simulator',
  };
  const s = serviceWithAccount({}, { env });

  it('refuses a simulated text without the secret or with a wrong one (401 SIM-001), storing nothing', async () => {
    const from = '+12015550178';
    const json = { from, to: await ourNumber(s.svc, s.a), text: 'STOP' };
    const attempts: Record<string, string>[] = [
      {},
      { 'x-simulator-secret': 'wrong' },
      { 'x-simulator-secret': `${SECRET}x` },
    ];
    for (const headers of attempts) {
      const res = await call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', { json, headers });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.equal(body(res).error.code, 'SIM-001');
    }
    assert.equal(await storedFrom(s.svc, s.a, from), 0);
    const ok = await call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json,
      headers: { 'x-simulator-secret': SECRET },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(await storedFrom(s.svc, s.a, from), 1);
  });

  it('pays a simulated checkout only with the secret', async () => {
    const res = await checkout(s.svc, s.a);
    assert.equal(res.statusCode, 200, res.body);
    const path = new URL(body(res).data).pathname;
    const before = await balance(s.svc, s.a);
    assert.equal((await call(s.svc.externals, 'GET', path)).statusCode, 401);
    assert.equal((await call(s.svc.externals, 'POST', `${path}/pay`)).statusCode, 401);
    assert.equal(await balance(s.svc, s.a), before, 'nothing credited without the secret');
    const page = await call(s.svc.externals, 'GET', path, { headers: { 'x-simulator-secret': SECRET } });
    assert.equal(page.statusCode, 200);
    const paid = await call(s.svc.externals, 'POST', `${path}/pay`, {
      headers: { 'x-simulator-secret': SECRET },
    });
    assert.equal(paid.statusCode, 303, paid.body);
    assert.equal(await balance(s.svc, s.a), before + 150);
  });
});

describe('development mode (the default)', () => {
  const s = serviceWithAccount();

  it('keeps the simulator endpoints open without a secret', async () => {
    const res = await call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+12015550179', to: await ourNumber(s.svc, s.a), text: 'hello' },
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  it(`refuses a commitment above ${MAX_COMMITMENT} with 400 and stores no checkout`, async () => {
    for (const commitment of [MAX_COMMITMENT + 1, 1_000_000]) {
      const res = await checkout(s.svc, s.a, { ...ORDER, commitment });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(body(res).error.code, 'VAL-001');
    }
    const { rows } = await s.svc.db.query(
      'SELECT count(*)::int AS n FROM checkout_sessions WHERE account_id = $1',
      [s.a.accountId],
    );
    assert.equal(rows[0].n, 0);
    assert.equal((await checkout(s.svc, s.a, { ...ORDER, commitment: MAX_COMMITMENT })).statusCode, 200);
  });

  it('asks for the secret in development too once SIMULATOR_SECRET is set', async () => {
    const guarded = await startTestService({}, { env: { SIMULATOR_SECRET: SECRET } });
    try {
      const acc = await guarded.newAccount();
      const json = { from: '+12015550180', to: await ourNumber(guarded, acc), text: 'hello' };
      const res = await call(guarded.externals, 'POST', '/v1/providers/simulator/messages', { json });
      assert.equal(res.statusCode, 401);
    } finally {
      await guarded.close();
    }
  });
});
