import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Config } from '../../src/config.ts';
import { eachItem } from '../../src/domain/claim.ts';
import { DEFAULT_PRICE_TABLE } from '../../src/messaging/pricing.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * Settings travel in the context, not in module globals (issue 30): two services with different
 * configurations share this process, each started before either is used, and each answers with its
 * own price table, short-link address (EXTERNALS_URL) and hosted-file trust. With settings held by
 * modules, the service started last set them for both.
 */
describe('two services in one process keep their own settings', () => {
  interface Side {
    name: string;
    svc: TestService;
    acc: TestAccount;
    /** The US rate per segment of this service's PRICE_TABLE. */
    usRate: number;
    externalsUrl: string;
  }
  const sides: Side[] = [];
  let seq = 0;

  // Loopback EXTERNALS_URLs, as in development: only each service's own /files/ path is trusted.
  const settings = (usRate: number, port: number): Partial<Config> => ({
    rateLimitPerMinute: 1_000_000,
    priceTable: { ...DEFAULT_PRICE_TABLE, US: usRate },
    externalsUrl: `http://127.0.0.1:${port}`,
  });
  // Service two serves metrics (METRICS_TOKEN); service one does not.
  const METRICS_TOKEN = 'metrics-token-of-service-two';

  before(async () => {
    // Both services exist before anything is asked of either.
    const one = await startTestService(settings(0.011, 4101));
    const two = await startTestService({
      ...settings(0.033, 4102),
      metrics: { port: 0, token: METRICS_TOKEN },
    });
    sides.push(
      { name: 'one', svc: one, acc: await one.newAccount({ balance: 100 }), usRate: 0.011, externalsUrl: '' },
      { name: 'two', svc: two, acc: await two.newAccount({ balance: 100 }), usRate: 0.033, externalsUrl: '' },
    );
    for (const s of sides) s.externalsUrl = s.svc.config.externalsUrl;
  });
  after(async () => {
    for (const s of sides) await s.svc.close();
  });

  const mobile = () => `+1201555${String(6000 + seq++).padStart(4, '0')}`;
  const send = (s: Side, json: object) =>
    call(s.svc.api, 'POST', `/v1/accounts/${s.acc.accountId}/messages`, { auth: s.acc.auth, json });

  it('prices a send by its own price table and shortens links on its own EXTERNALS_URL', async () => {
    for (const s of sides) {
      const res = await send(s, {
        contacts: [{ mobile: { number: mobile() } }],
        template: 'Sale on https://shop.example/sale today',
        shortenLinks: true,
      });
      assert.equal(res.statusCode, 200, `${s.name}: ${res.body}`);
      const data = body(res).data;
      assert.equal(data.estimatedPrice, s.usRate, `${s.name}: one US segment at its own rate`);
      const text: string = data.messages[0].message;
      assert.ok(text.startsWith(`Sale on ${s.externalsUrl}/l/`), `${s.name}: ${text}`);
    }
  });

  it('prices a reply queued for an inbound text (an autoresponder) by its own price table', async () => {
    for (const s of sides) {
      const created = await call(s.svc.api, 'POST', `/v1/accounts/${s.acc.accountId}/autoresponders`, {
        auth: s.acc.auth,
        json: {
          name: 'Hours',
          trigger: { type: 'keywords', keywords: ['hours'] },
          message: { message: '9 to 5' },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const groups = body(
        await call(s.svc.api, 'GET', `/v1/accounts/${s.acc.accountId}/groups?limit=100`, {
          auth: s.acc.auth,
        }),
      ).data as { isDefault: boolean; phoneNumbers: { number: string }[] }[];
      const ours = groups.find((g) => g.isDefault)?.phoneNumbers[0].number;
      const from = mobile();
      const inbound = await call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from, to: ours, text: 'hours?' },
      });
      assert.equal(inbound.statusCode, 200, inbound.body);
      const { rows } = await s.svc.db.query(
        `SELECT m.price::float8 AS price FROM messages m JOIN contacts c ON c.account_id = m.account_id AND c.id = m.contact_id
          WHERE m.account_id = $1 AND c.mobile_number = $2 AND m.outgoing`,
        [s.acc.accountId, from],
      );
      assert.deepEqual(
        rows.map((r) => r.price),
        [s.usRate],
        `${s.name}: the auto-reply at its own rate`,
      );
    }
  });

  it("accepts its own hosted files as media and refuses the other service's", async () => {
    const [one, two] = sides;
    for (const [s, other] of [
      [one, two],
      [two, one],
    ]) {
      const template = (url: string) =>
        call(s.svc.api, 'POST', `/v1/accounts/${s.acc.accountId}/templates`, {
          auth: s.acc.auth,
          json: { name: 'Flyer', template: 'See the flyer', media: [{ url }] },
        });
      const own = await template(`${s.externalsUrl}/files/flyer.png`);
      assert.equal(own.statusCode, 201, `${s.name}: ${own.body}`);
      const foreign = await template(`${other.externalsUrl}/files/flyer.png`);
      assert.equal(foreign.statusCode, 400, `${s.name}: ${foreign.body}`);
      assert.equal(body(foreign).error.code, 'MSG-009');
    }
  });

  it('counts in its metrics only the requests it answered', async () => {
    const [one, two] = sides;
    const listed = async () => {
      const res = await call(two.svc.api, 'GET', '/metrics', {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      const series = res.body
        .split('\n')
        .find(
          (l) =>
            l.startsWith('sparrow_http_requests_total{') &&
            l.includes('route="/v1/accounts/:accountId/links"'),
        );
      return series ? Number(series.slice(series.lastIndexOf(' ') + 1)) : 0;
    };
    const list = (s: Side) =>
      call(s.svc.api, 'GET', `/v1/accounts/${s.acc.accountId}/links`, { auth: s.acc.auth });
    for (let i = 0; i < 3; i++) assert.equal((await list(one)).statusCode, 200);
    assert.equal(await listed(), 0, "service one's requests are not service two's");
    assert.equal((await list(two)).statusCode, 200);
    assert.equal(await listed(), 1);
  });

  it("counts a worker queue's failed item (through its ctx.log) in its own metrics only", async () => {
    const [one, two] = sides;
    const fails = async () => {
      throw new Error('probe');
    };
    await eachItem(one.svc.ctx.log, 'probe-of-one', [1], String, fails);
    await eachItem(two.svc.ctx.log, 'probe-of-two', [1], String, fails);
    const res = await call(two.svc.api, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /^sparrow_worker_task_errors_total\{task="probe-of-two"\} 1$/m);
    assert.doesNotMatch(res.body, /probe-of-one/);
  });
});
