import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loggablePath } from '../../src/http/request-log.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { startSmallCheckout } from '../support/checkout.ts';

describe('request logs', () => {
  let svc: TestService;
  let a: TestAccount;
  const lines: string[] = [];
  const PHONE = '+12015550142';
  const PHONE_DIGITS = '2015550142';

  before(async () => {
    svc = await startTestService({}, { logger: { stream: { write: (line: string) => lines.push(line) } } });
    a = await svc.newAccount();
  });
  after(() => svc.close());

  /** The request log lines written while `fn` ran, parsed. */
  async function logged(fn: () => Promise<unknown>): Promise<Record<string, any>[]> {
    const from = lines.length;
    await fn();
    return lines.slice(from).map((l) => JSON.parse(l));
  }

  it('carry the path without the query string, and no body', async () => {
    const form = body(
      await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/forms`, {
        auth: a.auth,
        json: { name: 'Logged', active: true },
      }),
    ).data;
    const entries = await logged(async () => {
      await call(
        svc.externals,
        'GET',
        `/f/${form.id}?pageUrl=https%3A%2F%2Fx.example%2F%3Fmobile%3D${encodeURIComponent(PHONE)}&firstName=Zebedee`,
      );
      await call(svc.externals, 'POST', `/f/${form.id}`, {
        json: { mobile: PHONE, firstName: 'Zebedee', email: 'zebedee@example.com' },
      });
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts?mobile=${encodeURIComponent(PHONE)}`, {
        auth: a.auth,
      });
    });
    const text = JSON.stringify(entries);
    assert.ok(
      entries.some((e) => e.req?.url === `/f/${form.id}`),
      'the path is logged',
    );
    assert.ok(entries.some((e) => e.req?.url === `/v1/accounts/${a.accountId}/contacts`));
    for (const secret of [
      PHONE_DIGITS,
      'Zebedee',
      'zebedee@example.com',
      'pageUrl',
      'authorization',
      'Bearer',
    ]) {
      assert.ok(!text.includes(secret), `the log carries "${secret}"`);
    }
  });

  it('never carry a checkout session id, from a page, a payment or an unknown session', async () => {
    const res = await startSmallCheckout(svc, a);
    assert.equal(res.statusCode, 200, res.body);
    const path = new URL(body(res).data).pathname;
    const sessionId = path.split('/')[2];
    assert.ok(sessionId.length > 10);
    const entries = await logged(async () => {
      await call(svc.externals, 'GET', path);
      await call(svc.externals, 'POST', `${path}/pay`);
      await call(svc.externals, 'GET', '/checkout/cs_sim_not_a_session_abcdef?x=1');
    });
    const text = JSON.stringify(entries);
    assert.ok(entries.length >= 6, 'each request is logged');
    assert.ok(!text.includes(sessionId), 'the session id is not logged');
    assert.ok(!text.includes('not_a_session'), 'nor an unknown one');
    assert.ok(entries.some((e) => e.req?.url === '/checkout/:sessionId/pay'));
  });

  it('loggablePath drops the query and fragment and redacts checkout sessions', () => {
    assert.equal(loggablePath('/v1/x?mobile=%2B1201'), '/v1/x');
    assert.equal(loggablePath('/checkout/cs_sim_abc/pay?x=1'), '/checkout/:sessionId/pay');
    assert.equal(loggablePath('/checkout/cs_sim_abc'), '/checkout/:sessionId');
    assert.equal(loggablePath('/f/abc#frag'), '/f/abc');
  });
});

describe('request logs behind a proxy (TRUST_PROXY)', () => {
  it('name the forwarded client only when TRUST_PROXY is on', async () => {
    for (const trustProxy of [false, true]) {
      const lines: string[] = [];
      const svc = await startTestService(
        { trustProxy },
        { logger: { stream: { write: (line: string) => lines.push(line) } } },
      );
      try {
        await call(svc.externals, 'GET', '/l/nothing', { headers: { 'x-forwarded-for': '198.51.100.7' } });
        const addresses = lines.map((l) => JSON.parse(l).req?.remoteAddress).filter(Boolean);
        assert.ok(addresses.length > 0);
        assert.deepEqual(new Set(addresses), new Set([trustProxy ? '198.51.100.7' : '127.0.0.1']));
      } finally {
        await svc.close();
      }
    }
  });
});
