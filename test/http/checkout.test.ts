import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import {
  FAKE_STRIPE_KEY,
  type FakeStripe,
  startFakeStripe,
  startStripeTestService,
} from './billing-fake-stripe.ts';

const ORDER = {
  plan: 'growth',
  commitment: 150,
  frequency: 'monthly',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  address: { line1: '1 Analytical St', city: 'London', postalCode: 'N1 9GU' },
  tax: { type: 'gb_vat', id: 'GB123456789' },
  segmentUnderstanding: true,
};
const URLS =
  'successUrl=https%3A%2F%2Fapp.example%2Fpaid%3Fs%3D%7BCHECKOUT_SESSION_ID%7D&cancelUrl=https%3A%2F%2Fapp.example%2Fcancelled';

const checkout = (svc: TestService, acc: TestAccount, json: unknown = ORDER, qs = URLS) =>
  call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/checkout?${qs}`, { auth: acc.auth, json });
const account = async (svc: TestService, acc: TestAccount) =>
  body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}`, { auth: acc.auth })).data;
const balance = async (svc: TestService, acc: TestAccount) =>
  body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth })).data.balance;
const credits = async (svc: TestService, acc: TestAccount) =>
  body(
    await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/billing/transactions?type=checkout`, {
      auth: acc.auth,
    }),
  ).data;

describe('checkout with the payment simulator', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  /** The path on the public listener of a checkout URL. */
  const pagePath = (url: string) => new URL(url).pathname;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/checkout', () => {
    it('answers the URL of a hosted checkout page with Pay and Cancel', async () => {
      const res = await checkout(svc, a);
      assert.equal(res.statusCode, 200, res.body);
      const url: string = body(res).data;
      assert.ok(url.startsWith(`${svc.config.externalsUrl}/checkout/`), url);
      const page = await call(svc.externals, 'GET', pagePath(url));
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.match(page.body, /Growth plan/);
      assert.match(page.body, /150 USD/);
      assert.match(page.body, /action="\/checkout\/[^"]+\/pay"/);
      assert.match(page.body, /action="\/checkout\/[^"]+\/cancel"/);
      assert.equal((await account(svc, a)).status, 'trial', 'nothing changes until paid');
    });

    it('refuses invalid input with 400', async () => {
      const cases: [unknown, string, string][] = [
        [{ ...ORDER, commitment: 50 }, URLS, 'BILL-001'],
        [{ ...ORDER, plan: 'platinum' }, URLS, 'VAL-001'],
        [{ ...ORDER, commitment: 10.5 }, URLS, 'VAL-001'],
        [{ ...ORDER, email: 'not-an-email' }, URLS, 'VAL-001'],
        [{ ...ORDER, frequency: 'hourly' }, URLS, 'VAL-001'],
        [{ ...ORDER, name: undefined }, URLS, 'VAL-001'],
        [ORDER, 'cancelUrl=https%3A%2F%2Fapp.example%2F', 'VAL-001'],
        [ORDER, 'successUrl=ftp%3A%2F%2Fx.example%2F&cancelUrl=https%3A%2F%2Fapp.example%2F', 'VAL-001'],
        [ORDER, 'successUrl=javascript%3Aalert(1)&cancelUrl=https%3A%2F%2Fapp.example%2F', 'VAL-001'],
      ];
      for (const [json, qs, code] of cases) {
        const res = await checkout(svc, a, json, qs);
        assert.equal(res.statusCode, 400, `${JSON.stringify(json)} ${qs}`);
        assert.equal(body(res).error.code, code);
      }
      const { rows } = await svc.db.query(
        'SELECT count(*)::int AS n FROM checkout_sessions WHERE account_id = $1 AND commitment = 50',
        [a.accountId],
      );
      assert.equal(rows[0].n, 0);
    });

    it('answers 401 without a valid token and 403 for another account', async () => {
      const none = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/checkout?${URLS}`, {
        json: ORDER,
      });
      assert.equal(none.statusCode, 401);
      const bad = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/checkout?${URLS}`, {
        json: ORDER,
        auth: { authorization: 'Bearer x.y.z' },
      });
      assert.equal(bad.statusCode, 401);
      const other = await checkout(svc, { ...b, auth: a.auth });
      assert.equal(other.statusCode, 403);
    });
  });

  describe('the simulator checkout page', () => {
    it('Pay moves the account to the paid plan, credits the commitment once and redirects to successUrl', async () => {
      const acc = await svc.newAccount();
      const url: string = body(await checkout(svc, acc)).data;
      const sessionId = pagePath(url).split('/').pop() as string;
      const before = await balance(svc, acc);
      const paid = await call(svc.externals, 'POST', `${pagePath(url)}/pay`);
      assert.equal(paid.statusCode, 303, paid.body);
      assert.equal(paid.headers.location, `https://app.example/paid?s=${sessionId}`);
      const after = await account(svc, acc);
      assert.equal(after.status, 'paid');
      assert.equal(after.trial, false);
      assert.equal(after.plan, 'growth');
      assert.equal(await balance(svc, acc), before + 150);

      const again = await call(svc.externals, 'POST', `${pagePath(url)}/pay`);
      assert.equal(again.statusCode, 303);
      assert.equal(await balance(svc, acc), before + 150, 'paying twice credits once');
      const ledger = await credits(svc, acc);
      assert.equal(ledger.length, 1);
      assert.equal(ledger[0].amount, 150);
      assert.equal(ledger[0].balanceAfter, before + 150);
      assert.equal(ledger[0].direction, 'credit');

      const { rows } = await svc.db.query('SELECT * FROM billing_profiles WHERE account_id = $1', [
        acc.accountId,
      ]);
      assert.equal(rows[0].name, 'Ada Lovelace');
      assert.equal(rows[0].email, 'ada@example.com');
      assert.equal(rows[0].frequency, 'monthly');
      assert.equal(rows[0].commitment, 150);
      assert.deepEqual(rows[0].tax, { type: 'gb_vat', id: 'GB123456789' });
      assert.match(rows[0].payment_method_id, /^pm_sim_/);
      const page = await call(svc.externals, 'GET', pagePath(url));
      assert.match(page.body, /This checkout is paid/);
    });

    it('Cancel redirects to cancelUrl and leaves the account on trial; paying afterwards is 409', async () => {
      const acc = await svc.newAccount();
      const url: string = body(await checkout(svc, acc)).data;
      const before = await balance(svc, acc);
      const cancelled = await call(svc.externals, 'POST', `${pagePath(url)}/cancel`);
      assert.equal(cancelled.statusCode, 303);
      assert.equal(cancelled.headers.location, 'https://app.example/cancelled');
      const paid = await call(svc.externals, 'POST', `${pagePath(url)}/pay`);
      assert.equal(paid.statusCode, 409);
      assert.equal(body(paid).error.code, 'BILL-004');
      assert.equal((await account(svc, acc)).status, 'trial');
      assert.equal(await balance(svc, acc), before);
    });

    it('answers 404 BILL-003 for an unknown session', async () => {
      for (const path of [
        '/checkout/nope',
        `/checkout/cs_sim_${a.accountId.replaceAll('-', '')}_AAAAAAAAAAAAAAAAAAAAAAAA`,
      ]) {
        const res = await call(svc.externals, 'GET', path);
        assert.equal(res.statusCode, 404, path);
        assert.equal(body(res).error.code, 'BILL-003');
        assert.equal((await call(svc.externals, 'POST', `${path}/pay`)).statusCode, 404);
      }
    });
  });
});

describe('checkout with a Stripe-compatible provider', () => {
  let svc: TestService;
  let stripe: FakeStripe;
  let a: TestAccount;
  const webhook = (payload: string, signature?: string) =>
    call(svc.externals, 'POST', '/v1/providers/stripe/webhook', {
      payload,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(signature === undefined ? {} : { 'stripe-signature': signature }),
      },
    });

  before(async () => {
    stripe = await startFakeStripe();
    svc = await startStripeTestService(stripe);
    a = await svc.newAccount();
  });
  after(async () => {
    await svc.close();
    await stripe.close();
  });

  it('creates a Checkout Session (form-encoded, Bearer, idempotent) and answers its url', async () => {
    const res = await checkout(svc, a);
    assert.equal(res.statusCode, 200, res.body);
    const url: string = body(res).data;
    assert.match(url, /^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_\d+$/);
    const req = stripe.requests.find((r) => r.path === '/v1/checkout/sessions');
    assert.ok(req);
    assert.equal(req.authorization, `Bearer ${FAKE_STRIPE_KEY}`);
    assert.match(req.idempotencyKey ?? '', /^checkout-/);
    assert.equal(req.form.mode, 'payment');
    assert.equal(req.form['line_items[0][price_data][unit_amount]'], '15000');
    assert.equal(req.form['line_items[0][price_data][currency]'], 'usd');
    assert.equal(req.form['payment_intent_data[setup_future_usage]'], 'off_session');
    assert.equal(req.form['metadata[account_id]'], a.accountId);
    assert.equal(req.form.success_url, 'https://app.example/paid?s={CHECKOUT_SESSION_ID}');
    assert.equal(req.form.customer_email, 'ada@example.com');
  });

  it('completes on the signed checkout.session.completed webhook, once however often it is replayed', async () => {
    const acc = await svc.newAccount();
    const url: string = body(await checkout(svc, acc)).data;
    const sessionId = url.split('/').pop() as string;
    const before = await balance(svc, acc);
    const payload = JSON.stringify(stripe.pay(sessionId));
    const res = await webhook(payload, stripe.sign(payload));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(body(res).data.outcome, 'completed');
    assert.equal((await account(svc, acc)).status, 'paid');
    assert.equal(await balance(svc, acc), before + 150);
    const replay = await webhook(payload, stripe.sign(payload));
    assert.equal(replay.statusCode, 200);
    assert.equal(body(replay).data.outcome, 'already-completed');
    assert.equal(await balance(svc, acc), before + 150, 'a replayed event credits nothing');
    assert.equal((await credits(svc, acc)).length, 1);
    const { rows } = await svc.db.query(
      'SELECT provider, payment_method_id, customer_id FROM billing_profiles WHERE account_id = $1',
      [acc.accountId],
    );
    assert.deepEqual(rows[0], {
      provider: 'stripe',
      payment_method_id: `pm_pi_checkout_${sessionId}`,
      customer_id: `cus_pi_checkout_${sessionId}`,
    });
  });

  it('refuses a bad, missing, stale or mismatched signature with 403 and changes nothing', async () => {
    const acc = await svc.newAccount();
    const url: string = body(await checkout(svc, acc)).data;
    const payload = JSON.stringify(stripe.pay(url.split('/').pop() as string));
    const before = await balance(svc, acc);
    const stale = stripe.sign(payload, Math.floor(Date.now() / 1000) - 3600);
    const tampered = stripe.sign(payload).replace(/v1=./, (m) => (m.endsWith('0') ? 'v1=1' : 'v1=0'));
    for (const sig of [undefined, 't=1,v1=abc', stale, tampered, stripe.sign(`${payload} `)]) {
      const res = await webhook(payload, sig);
      assert.equal(res.statusCode, 403, String(sig));
      assert.equal(body(res).error.code, 'PROV-001');
    }
    assert.equal(await balance(svc, acc), before);
    assert.equal((await account(svc, acc)).status, 'trial');
  });

  it('answers a signed body that is not JSON with 400 and another content type with 415', async () => {
    const res = await webhook('not json', stripe.sign('not json'));
    assert.equal(res.statusCode, 400);
    assert.equal(body(res).error.code, 'VAL-002');
    const form = await call(svc.externals, 'POST', '/v1/providers/stripe/webhook', {
      payload: 'a=b',
      headers: { 'content-type': 'application/xml', 'stripe-signature': stripe.sign('a=b') },
    });
    assert.equal(form.statusCode, 415);
    assert.equal(body(form).success, false);
  });

  it('ignores signed events of other types and sessions that are not ours', async () => {
    for (const event of [
      { type: 'customer.created', data: { object: { id: 'cus_1' } } },
      {
        type: 'checkout.session.completed',
        data: { object: { id: 'cs_other', metadata: { account_id: a.accountId }, payment_status: 'paid' } },
      },
    ]) {
      const payload = JSON.stringify(event);
      const res = await webhook(payload, stripe.sign(payload));
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.outcome, 'ignored');
    }
  });

  it('answers 502 BILL-005 and stores nothing when the provider fails', async () => {
    stripe.failNext('/v1/checkout/sessions', 1);
    const res = await checkout(svc, a, { ...ORDER, commitment: 777 });
    assert.equal(res.statusCode, 502);
    assert.equal(body(res).error.code, 'BILL-005');
    const { rows } = await svc.db.query(
      'SELECT count(*)::int AS n FROM checkout_sessions WHERE commitment = 777',
    );
    assert.equal(rows[0].n, 0);
  });
});

describe('payments configuration', () => {
  it('defaults to the simulator and validates PAYMENTS_PROVIDER and the Stripe settings', () => {
    assert.equal(loadConfig({}).payments.provider, 'simulator');
    assert.throws(() => loadConfig({ PAYMENTS_PROVIDER: 'paypal' }), ConfigError);
    assert.throws(() => loadConfig({ PAYMENTS_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk' }), ConfigError);
    assert.throws(
      () =>
        loadConfig({
          PAYMENTS_PROVIDER: 'stripe',
          STRIPE_SECRET_KEY: 'sk',
          STRIPE_WEBHOOK_SECRET: 'w',
          STRIPE_API_BASE: 'not a url',
        }),
      ConfigError,
    );
    const stripe = loadConfig({
      PAYMENTS_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk',
      STRIPE_WEBHOOK_SECRET: 'w',
    });
    assert.deepEqual(stripe.payments, {
      provider: 'stripe',
      stripeApiBase: 'https://api.stripe.com',
      stripeSecretKey: 'sk',
      stripeWebhookSecret: 'w',
    });
  });
});
