/** Issue 25: a campaign's cron schedule fires at most once a minute (a sub-minute one is 400). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDueCampaigns } from '../../src/domain/campaigns/run-due-campaigns.ts';
import { nextCampaignRun } from '../../src/domain/campaigns/schedule-rule.ts';
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

  it('runs a stored schedule that fires every second once a minute (saved before such schedules were refused)', async () => {
    const res = await create('* * * * *');
    assert.equal(res.statusCode, 201, res.body);
    const id = body(res).data.id;
    // As a campaign saved before the check: its schedule fires every second, and a run is due now.
    const { rows } = await svc.db.query<{ due: Date }>(
      `UPDATE campaigns SET schedule = jsonb_set(schedule, '{cron}', '"* * * * * *"'),
              next_execution = now() - interval '1 second'
        WHERE account_id = $1 AND id = $2 RETURNING next_execution AS due`,
      [a.accountId, id],
    );
    const due = rows[0].due;
    await runDueCampaigns(svc.db, 10, false, svc.ctx.log, svc.ctx.config);
    const after = await svc.db.query<{ next: Date; running: boolean }>(
      `SELECT c.next_execution AS next, c.run_started_at IS NOT NULL AS running
         FROM campaigns c WHERE c.account_id = $1 AND c.id = $2`,
      [a.accountId, id],
    );
    assert.equal(after.rows[0].running, false, 'the run ended');
    assert.ok(
      after.rows[0].next.getTime() - due.getTime() >= 60_000,
      `next run ${after.rows[0].next.toISOString()} is a minute or more after the one due ${due.toISOString()}`,
    );
    // Nothing more is due now: a second round runs nothing.
    assert.equal(await runDueCampaigns(svc.db, 10, false, svc.ctx.log, svc.ctx.config), 0);
  });

  it('puts the next run of a recurring campaign a minute or more after the one that was due, and never in the past', () => {
    const due = new Date('2026-11-28T12:00:00.000Z');
    // Every second: the first firing a minute after the due one.
    assert.equal(
      nextCampaignRun('* * * * * *', 'UTC', due, new Date('2026-11-28T12:00:00.300Z')).toISOString(),
      '2026-11-28T12:01:00.000Z',
    );
    // Every minute: the next minute, not one skipped.
    assert.equal(
      nextCampaignRun('* * * * *', 'UTC', due, new Date('2026-11-28T12:00:00.300Z')).toISOString(),
      '2026-11-28T12:01:00.000Z',
    );
    // A run that was late: the next firing after now.
    assert.equal(
      nextCampaignRun('0 * * * *', 'UTC', due, new Date('2026-11-28T13:30:00.000Z')).toISOString(),
      '2026-11-28T14:00:00.000Z',
    );
  });
});
