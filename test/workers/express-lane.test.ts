/**
 * Issue 25, the express lane: every lane of the dispatcher may hold a range of one account's big
 * send while a slow carrier takes it (a lane holds its range until every message of it is handed
 * over). Another account's text must not wait for one of them to come free: the express lane
 * passes over the accounts the lanes hold and takes the next account's turn.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lanesFor } from '../../src/domain/send/dispatch/dispatch-batch.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { startWorkers } from '../../src/workers/index.ts';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { startCappedCarrier } from '../support/capped-carrier.ts';

describe('the express lane: a text is not held behind lanes busy with another account at a slow carrier', () => {
  let svc: TestService;
  let close: () => Promise<void>;
  let seq = 0;
  const mobile = () => `+1202${String(6_700_000 + seq++).padStart(7, '0')}`;

  // Two messages a second: each lane's range of A's send is held for seconds.
  before(async () => {
    ({ svc, close } = await startCappedCarrier('slow', 2));
  });
  after(() => close());

  const send = async (accountId: string, auth: TestAccount['auth'], n: number) => {
    const contacts = Array.from({ length: n }, () => ({ mobile: { number: mobile() } }));
    const res = await call(svc.api, 'POST', `/v1/accounts/${accountId}/messages`, {
      auth,
      json: { contacts, template: 'hello' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };

  it("sends B's one text and its 20-recipient send while every lane holds A's ranges", async () => {
    const a = await svc.newAccount({ balance: 1000 });
    const b = await svc.newAccount({ balance: 1000 });
    // A's numbers go through the slow carrier; B's through the simulator. Neither has a rate of its own.
    await svc.db.query(
      `UPDATE phone_numbers SET provider = 'slow', throughput_mps = 10000 WHERE account_id = $1`,
      [a.accountId],
    );
    await svc.db.query('UPDATE phone_numbers SET throughput_mps = 10000 WHERE account_id = $1', [
      b.accountId,
    ]);
    await eventually(async () => svc.ctx.providers.get('slow')?.linkUp?.());
    await send(a.accountId, a.auth, 400);
    const dispatcher = startWorkers(svc.ctx, [dispatch], () => {});
    try {
      // A's send is under way: each lane holds a range of it (a test's pool of 10, as a worker's:
      // three lanes and the express lane), and the carrier takes two a second.
      const { lanes, express } = lanesFor(svc.db);
      assert.ok(express);
      const ranges = async () =>
        (
          await svc.db.query<{ key: string }>(
            `SELECT job_id || '/' || lo AS key FROM dispatch_ranges WHERE account_id = $1`,
            [a.accountId],
          )
        ).rows.map((r) => r.key);
      const held = await eventually(
        async () => {
          const now = await ranges();
          return now.length >= lanes && now;
        },
        20_000,
        20,
      );

      const one = await send(b.accountId, b.auth, 1);
      const many = await send(b.accountId, b.auth, 20);
      await eventually(
        async () => {
          const { rows } = await svc.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND job_id = ANY($2::uuid[]) AND status = 'queued'`,
            [b.accountId, [one.jobId, many.jobId]],
          );
          return rows[0].n === 0;
        },
        30_000,
        20,
      );
      // B's 21 messages left the queue while every range of A's the lanes held is still held: no
      // lane had come free for them (without the express lane they waited for the first one to).
      const still = new Set(await ranges());
      assert.deepEqual(
        held.filter((r) => !still.has(r)),
        [],
        "A's ranges that ended before B's messages were sent",
      );
      const { rows: sent } = await svc.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND status IN ('sent', 'delivered')`,
        [b.accountId],
      );
      assert.equal(sent[0].n, 21, "B's messages sent (or already delivered)");
    } finally {
      await dispatcher.stop();
    }
  });
});
