import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAutoTopups } from '../../src/domain/billing/run-auto-topups.ts';
import { task } from '../../src/workers/index.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { type FakeStripe, startFakeStripe, startStripeTestService } from './billing-fake-stripe.ts';

const autoTopup = task('auto-topup');

const ORDER = {
  plan: 'starter',
  commitment: 20,
  frequency: 'monthly',
  name: 'Grace Hopper',
  email: 'grace@example.com',
};
const URLS = 'successUrl=https%3A%2F%2Fapp.example%2Fok&cancelUrl=https%3A%2F%2Fapp.example%2Fno';

const path = (acc: TestAccount, rest: string) => `/v1/accounts/${acc.accountId}${rest}`;
const balance = async (svc: TestService, acc: TestAccount) =>
  body(await call(svc.api, 'GET', path(acc, '/balance'), { auth: acc.auth })).data.balance as number;
const settings = async (svc: TestService, acc: TestAccount) =>
  body(await call(svc.api, 'GET', path(acc, '/autotopup'), { auth: acc.auth })).data;
const enable = (svc: TestService, acc: TestAccount, json: unknown) =>
  call(svc.api, 'PUT', path(acc, '/autotopup'), { auth: acc.auth, json });
const topups = async (svc: TestService, acc: TestAccount) =>
  (await svc.db.query('SELECT * FROM topups WHERE account_id = $1 ORDER BY created_at', [acc.accountId]))
    .rows;
const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('auto top-up with the payment simulator', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;

  /** A new account that paid the Starter plan through the simulator checkout: balance 20 + 20. */
  const paidAccount = async () => {
    const acc = await svc.newAccount();
    const res = await call(svc.api, 'POST', path(acc, `/checkout?${URLS}`), { auth: acc.auth, json: ORDER });
    assert.equal(res.statusCode, 200, res.body);
    const paid = await call(svc.externals, 'POST', `${new URL(body(res).data).pathname}/pay`);
    assert.equal(paid.statusCode, 303, paid.body);
    assert.equal(await balance(svc, acc), 40);
    return acc;
  };
  /** Sends one text to a new US contact (0.0079 from the balance). */
  const sendOne = async (acc: TestAccount) => {
    const res = await call(svc.api, 'POST', path(acc, '/messages'), {
      auth: acc.auth,
      json: {
        contacts: [{ mobile: { number: `+1201555${String(1000 + seq++).slice(-4)}`, country: 'US' } }],
        template: 'Your order shipped',
      },
    });
    assert.ok(res.statusCode < 300, res.body);
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
  });
  after(() => svc.close());

  describe('GET /v1/accounts/:accountId/autotopup', () => {
    it('is disabled, without settings or payment method, before it is ever set', async () => {
      const res = await call(svc.api, 'GET', path(a, '/autotopup'), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const s = body(res).data;
      assert.equal(s.enabled, false);
      assert.equal(s.threshold, undefined);
      assert.equal(s.amount, undefined);
      assert.equal(s.paymentMethod, undefined);
      assert.deepEqual(s.recentTopups, []);
    });

    it('answers 401 without a token and 403 for another account', async () => {
      assert.equal((await call(svc.api, 'GET', path(a, '/autotopup'))).statusCode, 401);
      const b = await svc.newAccount();
      assert.equal((await call(svc.api, 'GET', path(b, '/autotopup'), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('PUT /v1/accounts/:accountId/autotopup', () => {
    it('needs the payment method of a completed checkout: 409 BILL-002 before', async () => {
      const res = await enable(svc, a, { threshold: 5, amount: 10 });
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'BILL-002');
      assert.equal((await settings(svc, a)).enabled, false);
    });

    it('enables it after a checkout, with the saved payment method', async () => {
      const acc = await paidAccount();
      const res = await enable(svc, acc, { threshold: 5.555, amount: 10 });
      assert.equal(res.statusCode, 200, res.body);
      const s = body(res).data;
      assert.equal(s.enabled, true);
      assert.equal(s.threshold, 5.56);
      assert.equal(s.amount, 10);
      assert.equal(s.maxPerMonth, 5);
      assert.equal(s.paymentMethod.provider, 'simulator');
      assert.match(s.paymentMethod.id, /^pm_sim_/);
      assert.deepEqual(await settings(svc, acc), s);
    });

    it('refuses invalid settings with 400, 401 without a token and 403 for another account', async () => {
      const acc = await paidAccount();
      for (const json of [
        {},
        { threshold: 5 },
        { amount: 10 },
        { threshold: -1, amount: 10 },
        { threshold: 5, amount: 0 },
        { threshold: 5, amount: 1e308 },
        { threshold: 5, amount: 10, maxPerMonth: 0 },
        { threshold: 5, amount: 10, maxPerMonth: 1.5 },
        { threshold: 'lots', amount: 10 },
      ]) {
        const res = await enable(svc, acc, json);
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, 'VAL-001');
      }
      assert.equal((await settings(svc, acc)).enabled, false);
      const none = await call(svc.api, 'PUT', path(acc, '/autotopup'), {
        json: { threshold: 5, amount: 10 },
      });
      assert.equal(none.statusCode, 401);
      assert.equal(
        (await enable(svc, { ...a, auth: acc.auth }, { threshold: 5, amount: 10 })).statusCode,
        403,
      );
    });
  });

  describe('the auto-topup worker', () => {
    it('tops up once per dip: never again while the balance stays below the threshold', async () => {
      const acc = await paidAccount();
      await enable(svc, acc, { threshold: 100, amount: 1 });
      for (let i = 0; i < 3; i++) await runAutoTopups(svc.ctx, 50);
      const rows = await topups(svc, acc);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].status, 'succeeded');
      assert.equal(await balance(svc, acc), 41);
    });

    it('stops at maxPerMonth top-ups in a month', async () => {
      const acc = await paidAccount();
      await enable(svc, acc, { threshold: 45, amount: 10, maxPerMonth: 1 });
      await runAutoTopups(svc.ctx, 50);
      assert.equal(await balance(svc, acc), 50);
      // New settings re-arm it, and the balance is below the new threshold: but the month's one top-up is spent.
      await enable(svc, acc, { threshold: 60, amount: 10, maxPerMonth: 1 });
      for (let i = 0; i < 2; i++) await runAutoTopups(svc.ctx, 50);
      assert.equal((await topups(svc, acc)).length, 1);
      assert.equal(await balance(svc, acc), 50);
      assert.equal((await settings(svc, acc)).topupsThisMonth, 1);
    });
  });

  describe('DELETE /v1/accounts/:accountId/autotopup', () => {
    it('disables auto top-up: a dip below the threshold no longer tops up', async () => {
      const acc = await paidAccount();
      await enable(svc, acc, { threshold: 40, amount: 10 });
      const res = await call(svc.api, 'DELETE', path(acc, '/autotopup'), { auth: acc.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res), { success: true });
      assert.equal((await settings(svc, acc)).enabled, false);
      await sendOne(acc);
      await runAutoTopups(svc.ctx, 50);
      assert.equal((await topups(svc, acc)).length, 0);
      assert.ok((await balance(svc, acc)) < 40);
      const again = await call(svc.api, 'DELETE', path(acc, '/autotopup'), { auth: acc.auth });
      assert.equal(again.statusCode, 200, 'disabling it twice is fine');
    });

    it('answers 401 without a token and 403 for another account', async () => {
      assert.equal((await call(svc.api, 'DELETE', path(a, '/autotopup'))).statusCode, 401);
      const b = await svc.newAccount();
      assert.equal((await call(svc.api, 'DELETE', path(b, '/autotopup'), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/billing/transactions', () => {
    it('answers 400 for invalid paging or type, 401 without a token and 403 for another account', async () => {
      for (const qs of ['limit=0', 'limit=101', 'offset=-1', 'type=gift']) {
        const res = await call(svc.api, 'GET', path(a, `/billing/transactions?${qs}`), { auth: a.auth });
        assert.equal(res.statusCode, 400, qs);
      }
      assert.equal((await call(svc.api, 'GET', path(a, '/billing/transactions'))).statusCode, 401);
      const b = await svc.newAccount();
      assert.equal(
        (await call(svc.api, 'GET', path(b, '/billing/transactions'), { auth: a.auth })).statusCode,
        403,
      );
    });
  });

  // Last: the worker keeps running until the service closes.
  describe('a real send that lowers the balance', () => {
    it('triggers exactly one top-up, credited and listed with the send in the transactions', async () => {
      const acc = await paidAccount();
      await enable(svc, acc, { threshold: 40, amount: 10 });
      svc.startWorkers([autoTopup]);
      await runAutoTopups(svc.ctx, 50);
      assert.equal((await topups(svc, acc)).length, 0, 'no top-up while the balance is at the threshold');
      await sendOne(acc);
      const done = await eventually(async () => {
        const s = await settings(svc, acc);
        return s.recentTopups[0]?.status === 'succeeded' ? s : undefined;
      });
      assert.equal(done.recentTopups.length, 1);
      assert.equal(done.recentTopups[0].amount, 10);
      assert.ok(close(await balance(svc, acc), 40 - 0.0079 + 10));
      for (let i = 0; i < 3; i++) await runAutoTopups(svc.ctx, 50);
      assert.equal((await topups(svc, acc)).length, 1, 'it runs once');

      const res = await call(svc.api, 'GET', path(acc, '/billing/transactions'), { auth: acc.auth });
      assert.equal(res.statusCode, 200, res.body);
      const list = body(res);
      assert.deepEqual(
        list.data.map((t: { type: string }) => t.type),
        ['topup', 'send', 'checkout'],
      );
      const [topup, send, checkout] = list.data;
      assert.equal(topup.amount, 10);
      assert.equal(topup.direction, 'credit');
      assert.ok(close(topup.balanceAfter, 40 - 0.0079 + 10));
      assert.equal(send.amount, -0.0079);
      assert.equal(send.direction, 'debit');
      assert.equal(checkout.amount, 20);
      assert.equal(list.pagination.totalCount, 3);
      const only = body(
        await call(svc.api, 'GET', path(acc, '/billing/transactions?type=send'), { auth: acc.auth }),
      );
      assert.deepEqual(
        only.data.map((t: { id: string }) => t.id),
        [send.id],
      );
    });
  });
});

describe('auto top-up with a Stripe-compatible provider', () => {
  let svc: TestService;
  let stripe: FakeStripe;

  /** A new account paid through a Stripe checkout and its signed webhook. */
  const paidAccount = async () => {
    const acc = await svc.newAccount();
    const res = await call(svc.api, 'POST', path(acc, `/checkout?${URLS}`), { auth: acc.auth, json: ORDER });
    assert.equal(res.statusCode, 200, res.body);
    const payload = JSON.stringify(stripe.pay(String(body(res).data).split('/').pop() as string));
    const hook = await call(svc.externals, 'POST', '/v1/providers/stripe/webhook', {
      payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': stripe.sign(payload) },
    });
    assert.equal(hook.statusCode, 200, hook.body);
    return acc;
  };
  const charges = () =>
    stripe.requests.filter((r) => r.path === '/v1/payment_intents' && r.method === 'POST');

  before(async () => {
    stripe = await startFakeStripe();
    svc = await startStripeTestService(stripe);
  });
  after(async () => {
    await svc.close();
    await stripe.close();
  });

  it('records a failed charge, retries it after the backoff with the same idempotency key, and credits once', async () => {
    const acc = await paidAccount();
    await enable(svc, acc, { threshold: 1000, amount: 25 });
    stripe.failNext('/v1/payment_intents', 1);
    const before = await balance(svc, acc);
    await runAutoTopups(svc.ctx, 50);
    let [t] = await topups(svc, acc);
    assert.equal(t.status, 'pending');
    assert.equal(t.attempts, 1);
    assert.equal(t.error.code, 'api_error');
    assert.ok(new Date(t.next_attempt_at).getTime() > Date.now(), 'the retry waits for its backoff');
    const pending = (await settings(svc, acc)).recentTopups[0];
    assert.equal(pending.status, 'pending');
    assert.equal(pending.error.code, 'api_error');
    assert.equal(await balance(svc, acc), before);
    await runAutoTopups(svc.ctx, 50);
    assert.equal(charges().length, 1, 'not retried before its time');

    // The backoff has passed.
    await svc.db.query('UPDATE topups SET next_attempt_at = now() WHERE account_id = $1', [acc.accountId]);
    await runAutoTopups(svc.ctx, 50);
    [t] = await topups(svc, acc);
    assert.equal(t.status, 'succeeded');
    assert.equal(t.attempts, 2);
    const sent = charges();
    assert.equal(sent.length, 2);
    assert.equal(sent[0].idempotencyKey, sent[1].idempotencyKey);
    assert.equal(sent[0].idempotencyKey, t.idempotency_key);
    assert.equal(sent[1].form.amount, '2500');
    assert.equal(sent[1].form.off_session, 'true');
    assert.match(sent[1].form.payment_method, /^pm_pi_checkout_/);
    assert.equal(await balance(svc, acc), before + 25);
    assert.equal((await topups(svc, acc)).length, 1);
  });

  it('fails a declined charge without retrying or crediting', async () => {
    const acc = await paidAccount();
    await enable(svc, acc, { threshold: 1000, amount: 25 });
    stripe.setDecline(true);
    const before = await balance(svc, acc);
    const seen = charges().length;
    try {
      await runAutoTopups(svc.ctx, 50);
    } finally {
      stripe.setDecline(false);
    }
    const [t] = await topups(svc, acc);
    assert.equal(t.status, 'failed');
    assert.equal(t.error.code, 'insufficient_funds');
    await svc.db.query('UPDATE topups SET next_attempt_at = now() WHERE account_id = $1', [acc.accountId]);
    await runAutoTopups(svc.ctx, 50);
    assert.equal(charges().length, seen + 1);
    assert.equal((await topups(svc, acc)).length, 1, 'one dip, one top-up, even when it failed');
    assert.equal(await balance(svc, acc), before);
  });
});
