import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { dispatch } from '../../src/workers/dispatch.ts';
import { call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * A receipt's update of a message (a change of status) must stay a HOT update: no index of
 * `messages` may read `status` (migration 0356). Measured in the transaction that makes the
 * update (pg_stat_xact_user_tables counts its own updates, HOT ones apart), then rolled back.
 */
describe('a change of status is a HOT update of the message', () => {
  let svc: TestService;
  let a: TestAccount;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 10 });
    svc.startWorkers([dispatch]);
  });
  after(() => svc.close());

  /** Sends one text to `to` (with `extra` on the request) and answers its id once it is delivered. */
  const delivered = async (to: string, extra: object) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { contacts: [{ mobile: { number: to } }], template: 'Receipt', ...extra },
    });
    assert.equal(res.statusCode, 200, res.body);
    return eventually(async () => {
      const { rows } = await svc.db.query<{ id: string }>(
        `SELECT id FROM messages WHERE account_id = $1 AND outgoing AND to_number = $2 AND status = 'delivered'`,
        [a.accountId, to],
      );
      return rows[0]?.id;
    });
  };

  /** Changes the message's status as a receipt does, in a transaction rolled back: answers [updates, HOT]. */
  const receiptUpdate = async (id: string) => {
    // A connection of its own: a pooled backend's view would still hold the counts of the
    // updates it made for the dispatcher (pending statistics are per backend until flushed).
    const client = new pg.Client({ connectionString: svc.config.databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ part: string }>(
        'SELECT tableoid::regclass::text AS part FROM messages WHERE account_id = $1 AND id = $2',
        [a.accountId, id],
      );
      await client.query(
        `UPDATE messages SET status = 'sent', delivered_at = NULL, updated_at = now()
         WHERE account_id = $1 AND id = $2`,
        [a.accountId, id],
      );
      const stats = await client.query<{ upd: number; hot: number }>(
        `SELECT n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables
         WHERE relid = $1::regclass`,
        [rows[0].part],
      );
      return [stats.rows[0].upd, stats.rows[0].hot];
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  };

  /** Every update the transaction made to the message's partition was HOT. */
  const allHot = ([updates, hot]: number[]) => {
    assert.ok(updates >= 1, 'the update was counted');
    assert.equal(hot, updates, `${hot} of ${updates} updates HOT`);
  };

  it('for a message without a validity period', async () => {
    allHot(await receiptUpdate(await delivered('+12025550147', {})));
  });

  it('for a message with a validity period (the expiry index reads a column that stays null)', async () => {
    allHot(await receiptUpdate(await delivered('+12025550148', { validityPeriod: 3600 })));
  });
});
