import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, inOneWindow, startTestService, type TestService } from '../helpers.ts';
import { startSmallCheckout } from '../support/checkout.ts';
import { serviceWithAccount } from '../support/suite.ts';

const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';
const LIMITS = { forms: 3, bookings: 4, links: 5, callbacks: 6, simulator: 2, files: 7 };

/** Headers every hosted page sends. */
function assertPageHeaders(res: { headers: Record<string, unknown> }, what: string) {
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.match(csp, /default-src 'none'/, what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(res.headers['x-frame-options'], 'DENY', what);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', what);
}

describe('per-address rate limits of the public listener', () => {
  let svc: TestService;
  // Each test calls from an address of its own (X-Forwarded-For with TRUST_PROXY on): fresh buckets.
  let seq = 1;
  const client = () => ({ 'x-forwarded-for': `203.0.113.${seq++}` });

  before(async () => {
    svc = await startTestService({ publicRateLimits: LIMITS, redisUrl: undefined, trustProxy: true });
  });
  after(() => svc.close());

  /** Calls `fn` until it answers 429; answers how many calls were let through first. */
  async function allowedBefore429(fn: () => ReturnType<typeof call>, max = 50) {
    await inOneWindow();
    for (let i = 0; i < max; i++) {
      const res = await fn();
      if (res.statusCode === 429) return { allowed: i, res };
    }
    throw new Error(`no 429 within ${max} calls`);
  }

  it('gives each family its own budget and answers 429 RATE-001 with Retry-After in the envelope', async () => {
    const h = client();
    const cases: [string, () => ReturnType<typeof call>, number][] = [
      ['bookings', () => call(svc.externals, 'GET', '/v1/meetingevents/no-such-event', { headers: h }), 4],
      [
        'callbacks',
        () =>
          call(svc.externals, 'POST', '/v1/providers/twilio/status', {
            headers: { ...h, 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'MessageSid=SM1',
          }),
        6,
      ],
      [
        'simulator',
        () => call(svc.externals, 'POST', '/v1/providers/simulator/messages', { headers: h, json: {} }),
        2,
      ],
    ];
    for (const [family, fn, budget] of cases) {
      const { allowed, res } = await allowedBefore429(fn);
      assert.equal(allowed, budget, family);
      assert.equal(body(res).error.code, 'RATE-001', family);
      assert.ok(Number(res.headers['retry-after']) >= 1, family);
      assert.match(String(res.headers['ratelimit-policy']), new RegExp(`"${family}";q=${budget}`));
    }
  });

  it('answers a page, not JSON, to a browser over the budget of hosted forms and short links', async () => {
    const h = client();
    const form = await allowedBefore429(() => call(svc.externals, 'GET', `/f/${NOT_THERE}`, { headers: h }));
    assert.equal(form.allowed, LIMITS.forms);
    assert.match(String(form.res.headers['content-type']), /^text\/html/);
    assert.match(form.res.body, /Too many requests/);
    assert.ok(Number(form.res.headers['retry-after']) >= 1);
    assertPageHeaders(form.res, 'the 429 page');
    const links = await allowedBefore429(() => call(svc.externals, 'GET', '/l/nothing', { headers: h }));
    assert.equal(links.allowed, LIMITS.links, 'short links count apart from forms');
  });

  it('answers JSON to a script posting JSON to a hosted form over the budget', async () => {
    const h = client();
    const { res } = await allowedBefore429(() =>
      call(svc.externals, 'POST', `/f/${NOT_THERE}`, { headers: h, json: { mobile: '+12015550100' } }),
    );
    assert.equal(body(res).error.code, 'RATE-001');
  });

  it('does not limit the health check', async () => {
    const h = client();
    for (let i = 0; i < 10; i++) {
      assert.equal((await call(svc.externals, 'GET', '/healthz', { headers: h })).statusCode, 200);
    }
  });
});

describe('TRUST_PROXY', () => {
  const forms = (svc: TestService, forwardedFor: string) =>
    call(svc.externals, 'GET', `/f/${NOT_THERE}`, { headers: { 'x-forwarded-for': forwardedFor } });

  it('off (the default): two forwarded clients share the socket address’s bucket', async () => {
    const svc = await startTestService({ publicRateLimits: { ...LIMITS, forms: 2 }, redisUrl: undefined });
    try {
      assert.equal(svc.config.trustProxy, false);
      await inOneWindow();
      assert.equal((await forms(svc, '198.51.100.1')).statusCode, 404);
      assert.equal((await forms(svc, '198.51.100.1')).statusCode, 404);
      assert.equal((await forms(svc, '198.51.100.2')).statusCode, 429, 'X-Forwarded-For is not believed');
    } finally {
      await svc.close();
    }
  });

  it('on: each forwarded client has its own bucket', async () => {
    const svc = await startTestService(
      { publicRateLimits: { ...LIMITS, forms: 2 } },
      { env: { TRUST_PROXY: 'loopback', REDIS_URL: '' } },
    );
    try {
      await inOneWindow();
      assert.equal((await forms(svc, '198.51.100.1')).statusCode, 404);
      assert.equal((await forms(svc, '198.51.100.1')).statusCode, 404);
      assert.equal((await forms(svc, '198.51.100.1')).statusCode, 429);
      assert.equal((await forms(svc, '198.51.100.2')).statusCode, 404, 'another client, another bucket');
    } finally {
      await svc.close();
    }
  });
});

describe('protective headers of the public listener', () => {
  const s = serviceWithAccount();

  it('sends CSP with frame-ancestors none, nosniff, no-referrer and X-Frame-Options on every hosted page', async () => {
    const form = await call(s.svc.api, 'POST', `/v1/accounts/${s.a.accountId}/forms`, {
      auth: s.a.auth,
      json: { name: 'Headers', active: true },
    });
    assert.equal(form.statusCode, 201, form.body);
    const page = await call(s.svc.externals, 'GET', `/f/${body(form).data.id}`);
    assert.equal(page.statusCode, 200);
    assertPageHeaders(page, 'form page');
    assertPageHeaders(await call(s.svc.externals, 'GET', `/f/${NOT_THERE}`), 'form not found page');
    assertPageHeaders(await call(s.svc.externals, 'GET', '/l/nothing'), 'short-link not found page');

    const checkout = await startSmallCheckout(s.svc, s.a);
    assert.equal(checkout.statusCode, 200, checkout.body);
    const checkoutPage = await call(s.svc.externals, 'GET', new URL(body(checkout).data).pathname);
    assert.equal(checkoutPage.statusCode, 200);
    assertPageHeaders(checkoutPage, 'simulator checkout page');
  });

  it('sends them with the JSON answers of public booking too', async () => {
    const res = await call(s.svc.externals, 'GET', '/v1/meetingevents/no-such-event');
    assert.equal(res.statusCode, 404);
    assertPageHeaders(res, 'booking JSON');
  });
});
