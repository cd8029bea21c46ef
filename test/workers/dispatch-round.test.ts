import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dispatch } from '../../src/workers/dispatch.ts';
import { accountAt, call, eventually, startTestService, type TestService } from '../helpers.ts';

/**
 * A dispatcher round's wait for the next one (dispatchRound): no other dispatcher runs in this
 * file, so the round and the statements it waits on are the test's own.
 */
describe('a dispatcher round', () => {
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('is due again at the second after its lanes ended when throttled, however long the receipts after them take', async () => {
    const acc = await accountAt(svc, 1);
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: {
        contacts: ['+12016100001', '+12016100002', '+12016100003'].map((number) => ({ mobile: { number } })),
        template: 'one a second',
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    // The round applies early receipts once its lanes end; held here until past the next second.
    const blocker = await svc.db.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE early_receipts IN SHARE MODE');
      const round = dispatch.run(svc.ctx, new AbortController().signal);
      const waiting = await eventually(async () => {
        const { rows } = await svc.db.query(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND l.relation = 'early_receipts'::regclass AND NOT l.granted AND a.query LIKE 'DELETE FROM early_receipts%'`,
        );
        return rows[0].n > 0 && Date.now();
      });
      const nextSecond = waiting - (waiting % 1000) + 1000;
      await new Promise((r) => setTimeout(r, nextSecond + 200 - Date.now()));
      await blocker.query('COMMIT');
      // Throttled (one of the three went this second), its next round was due when that second
      // began, which has passed: at once, not at the second after (a whole second of nothing).
      assert.equal(await round, 0);
    } finally {
      blocker.release();
    }
    const { rows } = await svc.db.query(
      `SELECT date_trunc('second', submitted_at) AS second, count(*)::int AS n FROM messages
       WHERE account_id = $1 AND status IN ('sent', 'delivered') GROUP BY 1`,
      [acc.accountId],
    );
    // One a second: at least the first went, never two in one second (a round that began in a
    // second's last moments, or whose lanes a loaded machine kept past a second, sends on in the next).
    assert.ok(rows.length >= 1, 'none of three sent');
    for (const r of rows) assert.equal(r.n, 1, `${r.n} sent in the second of ${r.second.toISOString()}`);
  });
});
