import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordSubmissions, type SubmissionOutcome } from '../../src/db/queries/message-dispatch.ts';
import { applyReceipts } from '../../src/db/queries/message-receipts.ts';
import { call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

/**
 * The statements that record outcomes and receipts span accounts (one flush of the dispatcher
 * holds several accounts' messages) and ask whether each account hears the event once per account
 * and type (heardOnce), not once per row: each account must still get exactly what it listens for.
 */
describe('one statement over several accounts writes the events each account hears', () => {
  let svc: TestService;
  let listening: TestAccount;
  let deaf: TestAccount;
  let seq = 0;
  const nextMobile = () => `+1201${String(8_700_000 + seq++).padStart(7, '0')}`;

  before(async () => {
    svc = await startTestService();
    listening = await svc.newAccount({ balance: 10 });
    deaf = await svc.newAccount({ balance: 10 });
    await listenToEvents(svc.db, listening.accountId, ['message-sent', 'message-status']);
  });
  after(() => svc.close());

  /** Two queued texts of the account (no dispatcher runs): their rows. */
  const queued = async (acc: TestAccount) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: {
        contacts: [{ mobile: { number: nextMobile() } }, { mobile: { number: nextMobile() } }],
        template: 'Hi',
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { rows } = await svc.db.query<{ account_id: string; id: string; bulk: boolean; attempts: number }>(
      `SELECT account_id, id, bulk, attempts FROM messages WHERE account_id = $1 AND job_id = $2 ORDER BY id`,
      [acc.accountId, JSON.parse(res.body).data.jobId],
    );
    return rows;
  };
  const events = async (acc: TestAccount, type: string) => {
    const { rows } = await svc.db.query<{ id: string }>(
      `SELECT data->'message'->>'id' AS id FROM events WHERE account_id = $1 AND type = $2 ORDER BY 1`,
      [acc.accountId, type],
    );
    return rows.map((r) => r.id);
  };

  it('records both accounts’ sends in one statement; message-sent and message-status only for the listener', async () => {
    const rows = [...(await queued(deaf)), ...(await queued(listening))];
    for (const r of rows) assert.equal(r.bulk, true, 'a send of two recipients is dispatched as a range');
    const outcomes: SubmissionOutcome[] = rows.map((r, i) => ({
      accountId: r.account_id,
      id: r.id,
      attempt: r.attempts + 1,
      outcome: 'sent',
      provider: 'simulator',
      providerMessageId: `heard-once-${i}`,
      error: null,
      retryAfterSeconds: 0,
      price: 0,
      ranged: true,
      submittedSecond: Math.floor(Date.now() / 1000),
      refLookup: false,
      handed: true,
      owed: null,
    }));
    assert.deepEqual(await recordSubmissions(svc.db, outcomes), { sent: 4, retried: 0, failed: 0 });
    const mine = rows.filter((r) => r.account_id === listening.accountId).map((r) => r.id);
    assert.deepEqual(await events(listening, 'message-sent'), mine);
    assert.deepEqual(await events(deaf, 'message-sent'), []);

    // Receipts for all four in one statement: message-status for the listener's two only.
    const at = new Date();
    await applyReceipts(
      svc.db,
      rows.map((r) => ({
        provider: 'simulator',
        providerMessageId: `x-${r.id}`,
        status: 'delivered' as const,
        error: null,
        at,
        message: { accountId: r.account_id, id: r.id },
      })),
    );
    const { rows: delivered } = await svc.db.query(
      `SELECT count(*)::int AS n FROM messages WHERE id = ANY($1::uuid[]) AND status = 'delivered'`,
      [rows.map((r) => r.id)],
    );
    assert.equal(delivered[0].n, 4);
    assert.deepEqual(await events(listening, 'message-status'), mine);
    assert.deepEqual(await events(deaf, 'message-status'), []);
  });
});
