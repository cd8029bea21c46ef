import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('GET …/reports/summary', () => {
  let svc: TestService;
  let a: TestAccount;
  let ours: string;
  const url = (a: TestAccount, q = '') => `/v1/accounts/${a.accountId}/reports/summary${q}`;

  before(async () => {
    svc = await startTestService({ simulatorDeliveryDelayMs: 0 });
    svc.startWorkers();
    a = await svc.newAccount({ balance: 100 });
    const { rows } = await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
      [a.accountId],
    );
    ours = rows[0].number;
  });
  after(() => svc.close());

  it('counts what was sent, delivered, replied and opted out, with the spend, per day and in total', async () => {
    const empty = body(await call(svc.api, 'GET', url(a), { auth: a.auth })).data;
    assert.equal(empty.totals.sent, 0);
    assert.equal(empty.days.length, 31, 'the last 30 days up to now, both ends included');

    const send = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: {
        contacts: [
          { mobile: { number: '+12025550111', country: 'US' } },
          { mobile: { number: '+12025550112', country: 'US' } },
          { mobile: { number: '+12025550113', country: 'US' } },
        ],
        template: 'Hello from the report test',
      },
    });
    assert.equal(send.statusCode, 200, send.body);
    const jobId = body(send).data.jobId;
    await eventually(async () => {
      const r = body(await call(svc.api, 'GET', url(a), { auth: a.auth })).data;
      return r.totals.delivered === 3 && r.queued === 0;
    });
    for (const [from, text] of [
      ['+12025550111', 'thanks'],
      ['+12025550112', 'STOP'],
    ])
      assert.equal(
        (
          await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
            json: { from, to: ours, text },
          })
        ).statusCode,
        200,
      );
    // A stranger's text counts as a reply of the account, not of the send.
    await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+12025550199', to: ours, text: 'who is this?' },
    });

    const r = body(await call(svc.api, 'GET', url(a), { auth: a.auth })).data;
    assert.equal(r.totals.sent, 3);
    assert.equal(r.totals.delivered, 3);
    assert.equal(r.totals.failed, 0);
    assert.equal(r.totals.replies, 3);
    assert.equal(r.totals.optOuts, 1);
    assert.equal(r.totals.deliveryRate, 1);
    const { rows } = await svc.db.query(
      'SELECT sum(price)::float8 AS spend FROM messages WHERE account_id = $1 AND outgoing AND NOT system',
      [a.accountId],
    );
    assert.equal(r.totals.spend, Math.round(rows[0].spend * 10_000) / 10_000);
    assert.ok(r.totals.spend > 0);
    const today = r.days.at(-1);
    assert.equal(today.sent, 3);
    assert.equal(today.replies, 3);
    assert.equal(
      r.days.slice(0, -1).reduce((n: number, d: { sent: number }) => n + d.sent, 0),
      0,
    );
    assert.equal(
      r.balance,
      body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, { auth: a.auth })).data.balance,
    );

    const job = body(await call(svc.api, 'GET', url(a, `?jobId=${jobId}`), { auth: a.auth })).data;
    assert.equal(job.jobId, jobId);
    assert.equal(job.totals.sent, 3);
    assert.equal(job.totals.replies, 2, "only the send's recipients' replies");
    assert.equal(job.totals.optOuts, 1);
    const otherJob = body(
      await call(svc.api, 'GET', url(a, '?jobId=00000000-0000-7000-8000-000000000000'), { auth: a.auth }),
    ).data;
    assert.equal(otherJob.totals.sent, 0);
    assert.equal(otherJob.totals.replies, 0);
  });

  it('takes a period; refuses a reversed, overlong or malformed one (400)', async () => {
    const r = body(
      await call(svc.api, 'GET', url(a, '?from=2026-01-01T00:00:00Z&to=2026-01-08T00:00:00Z'), {
        auth: a.auth,
      }),
    ).data;
    assert.deepEqual(
      r.days.map((d: { day: string }) => d.day),
      ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05', '2026-01-06', '2026-01-07'],
    );
    for (const q of [
      '?from=2026-01-08T00:00:00Z&to=2026-01-01T00:00:00Z',
      '?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      '?from=yesterday',
      '?jobId=abc',
    ]) {
      const res = await call(svc.api, 'GET', url(a, q), { auth: a.auth });
      assert.equal(res.statusCode, 400, q);
      assert.equal(body(res).success, false);
    }
  });

  it("needs a token with messages:read for the account (401, 403), and never shows another account's figures", async () => {
    assert.equal((await call(svc.api, 'GET', url(a))).statusCode, 401);
    const other = await svc.newAccount();
    assert.equal((await call(svc.api, 'GET', url(a), { auth: other.auth })).statusCode, 403);
    const noScope = await svc.newAccount({ scopes: ['contacts:read'] });
    assert.equal((await call(svc.api, 'GET', url(noScope), { auth: noScope.auth })).statusCode, 403);
    assert.equal(body(await call(svc.api, 'GET', url(other), { auth: other.auth })).data.totals.sent, 0);
  });
});
