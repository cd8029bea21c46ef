/** Issue 25: a campaign's cron schedule fires at most once a minute (a sub-minute one is 400). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('campaign schedules: at most once a minute', () => {
  let svc: TestService;
  let a: TestAccount;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
  });
  after(() => svc.close());

  const create = (cron: string, timezone = 'UTC') =>
    call(svc.api, 'POST', `/v1/accounts/${a.accountId}/campaigns`, {
      auth: a.auth,
      json: { name: `Cron ${cron}`, template: 'tick', trigger: { code: 'S' }, schedule: { timezone, cron } },
    });

  it('refuses a schedule that fires more than once a minute with 400 VAL-001', async () => {
    for (const cron of ['* * * * * *', '*/30 * * * * *', '0,1 * * * * *', '*/10 0 * * * *']) {
      const res = await create(cron);
      assert.equal(res.statusCode, 400, `${cron}: ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-001');
      assert.match(body(res).error.message, /more than once a minute/);
    }
    const listed = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/campaigns`, { auth: a.auth }),
    );
    assert.equal(listed.pagination.totalCount, 0, 'nothing was created');
  });

  it('accepts schedules of a minute or more (five fields, or six with one second)', async () => {
    for (const cron of ['* * * * *', '*/5 * * * *', '30 * * * * *', '0 9 * * 1-5']) {
      const res = await create(cron, 'Europe/Stockholm');
      assert.equal(res.statusCode, 201, `${cron}: ${res.body}`);
    }
  });
});
