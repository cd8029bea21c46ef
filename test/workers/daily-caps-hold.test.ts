/**
 * Issue 25: holding messages past a daily cap never strands them behind a dispatch cursor. A claim
 * that straddles the start of the account's day holds its messages for a day that has already
 * begun, whose cursor a range claim may have moved past them: they get a hold of their own instead,
 * and go under the new day's cap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { holdForNextDay } from '../../src/db/queries/daily-caps.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, startTestService, type TestService } from '../helpers.ts';

describe('holding messages for the next day', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('gives messages a hold of their own when their day’s cursor was already handed out past them', async () => {
    const acc = await svc.newAccount({ balance: 10 });
    const contacts = ['+12027300001', '+12027300002', '+12027300003'].map((number) => ({
      mobile: { number },
    }));
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: { contacts, template: 'Straddling' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const jobId = body(res).data.jobId as string;
    const { rows: ids } = await svc.db.query<{ id: string }>(
      'SELECT id FROM messages WHERE account_id = $1 AND job_id = $2 ORDER BY id',
      [acc.accountId, jobId],
    );
    // Yesterday's cap ran out in a claim that began before midnight (UTC, the account's zone): its
    // hold, today's start, has come, and a range claim already moved today's cursor past all three.
    const { rows: day } = await svc.db.query<{ yesterday: string; today_start: Date }>(
      `SELECT ((now() AT TIME ZONE 'UTC')::date - 1)::text AS yesterday,
              ((now() AT TIME ZONE 'UTC')::date)::timestamp AT TIME ZONE 'UTC' AS today_start`,
    );
    await svc.db.query(
      `WITH c AS (DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2)
       INSERT INTO dispatch_cursors (account_id, job_id, not_before, cursor) VALUES ($1, $2, $3, $4)`,
      [acc.accountId, jobId, day[0].today_start, ids[2].id],
    );
    const held = await holdForNextDay(
      svc.db,
      ids.map((r) => ({ accountId: acc.accountId, id: r.id, day: day[0].yesterday })),
      false,
    );
    assert.equal(held, 3);
    const { rows: holds } = await svc.db.query<{ not_before: Date }>(
      'SELECT DISTINCT not_before FROM messages WHERE account_id = $1 AND job_id = $2',
      [acc.accountId, jobId],
    );
    assert.equal(holds.length, 1);
    assert.ok(holds[0].not_before.getTime() > day[0].today_start.getTime(), 'not the handed-out cursor’s');
    // (Compared in SQL: a JS Date would drop the hold's microseconds.)
    const { rows: cursors } = await svc.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM dispatch_cursors c
        WHERE c.account_id = $1 AND c.job_id = $2 AND c.cursor IS NULL
          AND c.not_before = (SELECT DISTINCT m.not_before FROM messages m WHERE m.account_id = $1 AND m.job_id = $2)`,
      [acc.accountId, jobId],
    );
    assert.equal(cursors[0].n, 1, 'a cursor of their own');
    // A second later (moved back rather than waited for) they go.
    await svc.db.query(
      `WITH m AS (UPDATE messages SET not_before = not_before - interval '2 seconds'
                   WHERE account_id = $1 AND job_id = $2)
       UPDATE dispatch_cursors SET not_before = not_before - interval '2 seconds'
        WHERE account_id = $1 AND job_id = $2 AND cursor IS NULL`,
      [acc.accountId, jobId],
    );
    for (let i = 0; i < 3; i++) await dispatch.run(svc.ctx, new AbortController().signal);
    const { rows: sent } = await svc.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND job_id = $2 AND status IN ('sent', 'delivered')`,
      [acc.accountId, jobId],
    );
    assert.equal(sent[0].n, 3);
  });
});
