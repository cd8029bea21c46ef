/**
 * Issue 25, weighted fair dispatch: which job a range claim takes next. Accounts take turns
 * (weighted by accounts.dispatch_weight) instead of the oldest job going first, and within an
 * account a send of one or a few recipients goes before its bulk sends. Claims are made by hand
 * (no dispatcher running), so what each claim takes is known; timing figures: `npm run bench:fairness`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lockOpenJob, type OpenJob } from '../../src/db/queries/dispatch-ranges.ts';
import { claimRangeBatch } from '../../src/domain/send/dispatch/ranges.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('fair dispatch: which job a claim takes', () => {
  let svc: TestService;
  let seq = 0;
  const mobile = () => `+1202${String(6_300_000 + seq++).padStart(7, '0')}`;

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  /** A new account whose numbers take 10,000 messages a second (so no claim waits for a rate slot). */
  const account = async () => {
    const acc = await svc.newAccount({ balance: 1000 });
    await svc.db.query('UPDATE phone_numbers SET throughput_mps = 10000 WHERE account_id = $1', [
      acc.accountId,
    ]);
    return acc;
  };
  /** A send to `n` new mobiles; answers its job id. */
  const send = async (acc: TestAccount, n: number) => {
    const contacts = Array.from({ length: n }, () => ({ mobile: { number: mobile() } }));
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: { contacts, template: 'hello' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data.jobId as string;
  };
  /** Claims one range of at most `limit` and hands it back as if sent; answers whose job it was. */
  const claim = async (limit: number) => {
    const c = await claimRangeBatch(svc.ctx, limit);
    assert.ok(c.range, 'a range was claimed');
    // Done with it: its messages leave the queue, as recorded outcomes would take them out.
    await svc.db.query(
      `UPDATE messages SET status = 'sent' WHERE account_id = $1 AND job_id = $2 AND id BETWEEN $3 AND $4`,
      [c.range.accountId, c.range.jobId, c.range.lo, c.range.hi],
    );
    await svc.db.query('DELETE FROM dispatch_ranges WHERE account_id = $1 AND job_id = $2 AND lo = $3', [
      c.range.accountId,
      c.range.jobId,
      c.range.lo,
    ]);
    return c.range;
  };
  const drain = async () => {
    for (;;) {
      const c = await claimRangeBatch(svc.ctx, 10_000);
      if (!c.range) return;
      await svc.db.query(`UPDATE messages SET status = 'sent' WHERE account_id = $1 AND job_id = $2`, [
        c.range.accountId,
        c.range.jobId,
      ]);
      await svc.db.query('DELETE FROM dispatch_ranges WHERE account_id = $1 AND job_id = $2', [
        c.range.accountId,
        c.range.jobId,
      ]);
    }
  };

  it("takes another account's one text next, not the rest of an earlier account's big send", async () => {
    const a = await account();
    const b = await account();
    const big = [await send(a, 40), await send(a, 40), await send(a, 40)];
    // A's send is under way when B sends.
    const first = await claim(20);
    assert.equal(first.accountId, a.accountId);
    assert.equal(first.jobId, big[0]);
    const one = await send(b, 1);
    // Before: the oldest open job went first (A's other 100 messages, five more claims, then B).
    const second = await claim(20);
    assert.equal(second.accountId, b.accountId, "B's text is claimed right after A's first range");
    assert.equal(second.jobId, one);
    await drain();
  });

  it("serves two accounts' bulk sends in turn, in proportion to their weights", async () => {
    const a = await account();
    const b = await account();
    await svc.db.query('UPDATE accounts SET dispatch_weight = 3 WHERE id = $1', [a.accountId]);
    await send(a, 200);
    await send(b, 200);
    const order: string[] = [];
    for (let i = 0; i < 16; i++) order.push((await claim(10)).accountId === a.accountId ? 'A' : 'B');
    const shareA = order.filter((x) => x === 'A').length;
    // Weight 3 to 1: 12 of 16 ranges (one of them the turn B's first range costs A), never 16.
    assert.ok(shareA >= 11 && shareA <= 13, order.join(''));
    // Equal weights: turn for turn.
    await svc.db.query('UPDATE accounts SET dispatch_weight = 1 WHERE id = $1', [a.accountId]);
    await drain();
    await send(a, 100);
    await send(b, 100);
    const even: string[] = [];
    for (let i = 0; i < 10; i++) even.push((await claim(10)).accountId === a.accountId ? 'A' : 'B');
    assert.equal(even.filter((x) => x === 'A').length, 5, even.join(''));
    await drain();
  });

  it("within an account, a send of one or a few recipients goes before the account's own bulk send", async () => {
    const a = await account();
    const bulk = await send(a, 60);
    const code = await send(a, 1);
    const first = await claim(20);
    // Before: the older bulk job went first, and the one-time code waited for its 60 messages.
    assert.equal(first.jobId, code);
    assert.equal((await claim(20)).jobId, bulk);
    await drain();
  });

  it("passes over a job another claim is taking for the account's next open one, and waits for the first when every one is taken", async () => {
    await drain();
    const a = await account();
    const jobs = [await send(a, 3), await send(a, 3)];
    const [c1, c2, c3] = [await svc.db.connect(), await svc.db.connect(), await svc.db.connect()];
    try {
      for (const c of [c1, c2, c3]) await c.query('BEGIN');
      // Two lanes claiming at once each get a job of their own (an SMPP client's windows are many small jobs).
      assert.equal((await lockOpenJob(c1))?.id, jobs[0]);
      assert.equal((await lockOpenJob(c2))?.id, jobs[1]);
      // A third finds both taken: it waits for the first (lanes on one big send take turns), not nothing.
      const third: { job?: OpenJob } = {};
      const waiting = lockOpenJob(c3).then((j) => {
        third.job = j;
      });
      await eventually(async () => {
        const { rows } = await svc.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
          [(c3 as unknown as { processID: number }).processID],
        );
        return rows[0].n === 1;
      });
      assert.equal(third.job === undefined, true, 'still waiting');
      await c1.query('COMMIT');
      await waiting;
      assert.equal(third.job?.id, jobs[0]);
    } finally {
      for (const c of [c1, c2, c3]) {
        await c.query('ROLLBACK').catch(() => {});
        c.release();
      }
    }
  });
});
