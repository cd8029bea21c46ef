import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dispatchBatch, MAX_ATTEMPTS } from '../../src/domain/send/dispatch/dispatch-batch.ts';
import { applyStatusUpdates } from '../../src/domain/send/receipts/apply-status-updates.ts';
import { SimulatorProvider } from '../../src/providers/simulator/provider.ts';
import type { Provider, ProviderName, SendResult } from '../../src/providers/types.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import {
  accountAt,
  body,
  call,
  eventually,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

const US_RATE = 0.0079;
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

describe('dispatch', () => {
  let svc: TestService;
  let seq = 0;
  const nextMobile = () => `+1201${String(6_000_000 + seq++).padStart(7, '0')}`;

  before(async () => {
    // The tests poll messages through the API until the workers finish: the per-client rate limit
    // (not what this file tests) would answer 429 to the polling on a slow machine.
    svc = await startTestService({ simulatorDeliveryDelayMs: 20, rateLimitPerMinute: 1_000_000 });
  });
  after(() => svc.close());

  const send = async (acc: TestAccount, json: object) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json,
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  const toMobiles = (numbers: string[]) => numbers.map((number) => ({ mobile: { number } }));
  const getMessage = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages/${id}`, { auth: acc.auth })).data;
  const balance = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth })).data
      .balance as number;
  const ourNumber = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, { auth: acc.auth }))
      .data[0] as {
      id: string;
      number: string;
    };
  const events = async (acc: TestAccount, type: string, messageId: string) => {
    const { rows } = await svc.db.query(
      `SELECT sparrow_event_payload(e) AS data FROM events e
       WHERE account_id = $1 AND type = $2 AND data->'message'->>'id' = $3 ORDER BY id`,
      [acc.accountId, type, messageId],
    );
    return rows.map((r) => r.data);
  };
  /** Runs dispatch rounds in this test until fn holds (the worker loop is not running). */
  const dispatchUntil = async <T>(fn: () => Promise<T | undefined | false | null>) =>
    eventually(async () => {
      await dispatch.run(svc.ctx, new AbortController().signal);
      return fn();
    });

  describe('with no worker running', () => {
    let a: TestAccount;
    before(async () => {
      a = await svc.newAccount({ balance: 50 });
      // The tests read a's message-sent and message-status events, written only where heard.
      await listenToEvents(svc.db, a.accountId, ['message-sent', 'message-status']);
    });

    it('takes over a range whose claim expired (a killed worker) and never submits an attempt twice', async () => {
      const data = await send(a, { contacts: toMobiles([nextMobile(), nextMobile()]), template: 'killed' });
      const ids: string[] = data.messages.map((m: { id: string }) => m.id).sort();
      // A worker claimed both as one range of the job (attempt 1), submitted the first, and died
      // before recording anything.
      await svc.db.query(
        `WITH r AS (INSERT INTO dispatch_ranges (account_id, job_id, lo, hi, claimed_until)
                    VALUES ($1, $2, $3, $4, now() + interval '30 seconds'))
         DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2`,
        [a.accountId, data.jobId, ids[0], ids[1]],
      );
      const sim = svc.ctx.providers.simulator;
      const first = await svc.db.query('SELECT * FROM messages WHERE account_id = $1 AND id = $2', [
        a.accountId,
        ids[0],
      ]);
      const m0 = first.rows[0];
      const r = await sim.send({
        id: m0.id,
        accountId: a.accountId,
        attempt: 1,
        from: m0.from_number,
        to: m0.to_number,
        body: m0.body,
        encoding: 'GSM-7',
        segments: 1,
        media: [],
      });
      assert.equal(r.ok, true);
      // While the claim holds, the messages read as sending and nobody else takes them.
      assert.equal((await getMessage(a, ids[0])).status, 'sending');
      assert.equal((await dispatchBatch(svc.ctx)).claimed, 0);
      await svc.db.query(
        `UPDATE dispatch_ranges SET claimed_until = now() - interval '1 second' WHERE account_id = $1 AND job_id = $2`,
        [a.accountId, data.jobId],
      );
      const before = sim.counters().duplicates;
      const [x, y] = await Promise.all([dispatchBatch(svc.ctx), dispatchBatch(svc.ctx)]);
      assert.equal(x.claimed + y.claimed, 2);
      assert.equal((await dispatchBatch(svc.ctx)).claimed, 0);
      for (const id of ids) {
        const m = await getMessage(a, id);
        assert.equal(m.status, 'sent');
        const { rows } = await svc.db.query(
          'SELECT attempts, provider_ref FROM messages WHERE account_id = $1 AND id = $2',
          [a.accountId, id],
        );
        assert.equal(rows[0].attempts, 1, 'the takeover repeats attempt 1 under the same submission key');
        assert.equal(rows[0].provider_ref, SimulatorProvider.providerMessageId(id, 1));
        assert.equal((await events(a, 'message-sent', id)).length, 1);
      }
      assert.equal(sim.acceptedAttempts(ids[0]), 1);
      assert.equal(sim.acceptedAttempts(ids[1]), 1);
      assert.equal(
        sim.counters().duplicates,
        before + 1,
        'the repeated submission of the first was a duplicate',
      );
      const { rows: left } = await svc.db.query(
        'SELECT 1 FROM dispatch_ranges WHERE account_id = $1 AND job_id = $2',
        [a.accountId, data.jobId],
      );
      assert.equal(left.length, 0, 'the finished range is gone');
    });

    it('applies a receipt that arrived before the submission was recorded', async () => {
      const data = await send(a, { contacts: toMobiles([nextMobile()]), template: 'early' });
      const id = data.messages[0].id;
      const pmid = SimulatorProvider.providerMessageId(id, 1);
      assert.equal(
        await applyStatusUpdates(svc.ctx, [
          {
            provider: 'simulator',
            providerMessageId: pmid,
            message: { accountId: a.accountId, id },
            status: 'delivered',
            at: new Date(),
          },
        ]),
        0,
      );
      assert.equal((await getMessage(a, id)).status, 'queued');
      const m = await dispatchUntil(async () => {
        const x = await getMessage(a, id);
        return x.status === 'delivered' && x;
      });
      assert.equal(m.status, 'delivered');
      assert.equal((await events(a, 'message-status', id)).length, 1);
    });

    it('retries a retryable provider failure with backoff, then fails it after the last attempt and refunds it', async () => {
      const calls: number[] = [];
      const flaky: Provider = {
        name: 'simulator',
        send: async (m): Promise<SendResult> => {
          calls.push(m.attempt);
          return {
            ok: false,
            status: 'failed',
            error: { code: '20429', description: 'Too many requests' },
            retryable: true,
          };
        },
        start: async () => {},
        close: async () => {},
      };
      const before = await balance(a);
      const data = await send(a, { contacts: toMobiles([nextMobile()]), template: 'flaky' });
      const id = data.messages[0].id;
      const original = svc.ctx.providers.get;
      svc.ctx.providers.get = (name: ProviderName) => (name === 'simulator' ? flaky : original(name));
      try {
        await dispatchBatch(svc.ctx);
        const { rows } = await svc.db.query(
          `SELECT status, attempts, error, not_before > now() AS waiting FROM messages WHERE account_id = $1 AND id = $2`,
          [a.accountId, id],
        );
        assert.deepEqual(rows[0], {
          status: 'queued',
          attempts: 1,
          error: { code: '20429', description: 'Too many requests' },
          waiting: true,
        });
        assert.equal((await dispatchBatch(svc.ctx)).claimed, 0, 'not before its backoff');
        for (let i = 2; i <= MAX_ATTEMPTS; i++) {
          await svc.db.query(`UPDATE messages SET not_before = now() WHERE account_id = $1 AND id = $2`, [
            a.accountId,
            id,
          ]);
          assert.equal((await dispatchBatch(svc.ctx)).claimed, 1);
        }
      } finally {
        svc.ctx.providers.get = original;
      }
      assert.deepEqual(calls, [1, 2, 3, 4, 5]);
      const m = await getMessage(a, id);
      assert.equal(m.status, 'failed');
      assert.equal(m.error.code, '20429');
      assert.equal(m.price, 0);
      assert.equal(await balance(a), before);
    });
    it('closes a job its claim exhausts, so the next claim takes the next job instead of coming back empty', async () => {
      while ((await dispatchBatch(svc.ctx)).claimed > 0);
      const first = await send(a, {
        contacts: toMobiles([nextMobile(), nextMobile(), nextMobile()]),
        template: 'A',
      });
      const second = await send(a, {
        contacts: toMobiles([nextMobile(), nextMobile(), nextMobile()]),
        template: 'B',
      });
      // A claim of exactly the first job's size takes all of it and ends the job's cursor with it.
      const one = await dispatchBatch(svc.ctx, 3);
      assert.equal(one.claimed, 3);
      assert.equal(one.full, true);
      const { rows: cursors } = await svc.db.query(
        'SELECT job_id FROM dispatch_cursors WHERE account_id = $1 AND job_id = ANY($2::uuid[])',
        [a.accountId, [first.jobId, second.jobId]],
      );
      assert.deepEqual(
        cursors.map((c) => c.job_id),
        [second.jobId],
      );
      const two = await dispatchBatch(svc.ctx, 3);
      assert.equal(two.claimed, 3, 'the next claim is the second job, not an empty hand');
      for (const m of [...first.messages, ...second.messages])
        assert.equal((await getMessage(a, m.id)).status, 'sent');
    });
    it('sends the STOP confirmation (a system message) but fails CONT-010 what was queued before the opt-out', async () => {
      const acc = await svc.newAccount({ balance: 10 });
      const mobile = nextMobile();
      const data = await send(acc, { contacts: toMobiles([mobile]), template: 'promo' });
      const number = await ourNumber(acc);
      const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: mobile, to: number.number, text: 'stop' },
      });
      assert.equal(stop.statusCode, 200, stop.body);
      await dispatchBatch(svc.ctx);
      const m = await getMessage(acc, data.messages[0].id);
      assert.equal(m.status, 'failed');
      assert.equal(m.error.code, 'CONT-010');
      assert.equal(m.price, 0);
      assert.equal(await balance(acc), 10);
      const res = body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages?contactId=${m.contact.id}`, {
          auth: acc.auth,
        }),
      );
      const replies = res.data.filter((x: { outgoing: boolean; id: string }) => x.outgoing && x.id !== m.id);
      assert.equal(replies.length, 1);
      assert.equal(replies[0].status, 'sent');
      assert.equal(replies[0].price, 0);
    });
  });

  describe('with the workers running', () => {
    let a: TestAccount;
    before(async () => {
      a = await svc.newAccount({ balance: 50 });
      // The tests read a's message-sent and message-status events, written only where heard.
      await listenToEvents(svc.db, a.accountId, ['message-sent', 'message-status']);
      svc.startWorkers([dispatch]);
    });

    it('moves messages queued → sent → delivered through the simulator, with message-sent and message-status events', async () => {
      const data = await send(a, {
        contacts: toMobiles([nextMobile(), nextMobile(), nextMobile()]),
        template: 'Hi {{{mobile}}}',
      });
      const ids: string[] = data.messages.map((m: { id: string }) => m.id);
      await eventually(async () => {
        const all = await Promise.all(ids.map((id) => getMessage(a, id)));
        return all.every((m) => m.status === 'delivered');
      });
      for (const id of ids) {
        const sentEvents = await events(a, 'message-sent', id);
        assert.equal(sentEvents.length, 1);
        assert.equal(sentEvents[0].status, 'sent');
        assert.equal(sentEvents[0].message.segments, 1);
        assert.equal(sentEvents[0].message.price, US_RATE);
        const statusEvents = await events(a, 'message-status', id);
        assert.deepEqual(
          statusEvents.map((e) => e.status),
          ['delivered'],
        );
      }
      const { rows } = await svc.db.query(
        `SELECT status, pending FROM send_jobs WHERE account_id = $1 AND id = $2`,
        [a.accountId, data.jobId],
      );
      assert.deepEqual(rows[0], { status: 'completed', pending: 0 });
    });

    it('fails magic invalid, unroutable and non-SMS numbers with the carrier error and refunds them', async () => {
      const before = await balance(a);
      const magic = ['+15005550001', '+15005550002', '+15005550009'];
      const data = await send(a, { contacts: toMobiles(magic), template: 'magic' });
      assert.equal(data.queued, 3);
      assert.equal(round4(before - (await balance(a))), round4(3 * US_RATE));
      const final = await eventually(async () => {
        const all = await Promise.all(data.messages.map((m: { id: string }) => getMessage(a, m.id)));
        return all.every((m) => m.status === 'failed') && all;
      });
      const codes = Object.fromEntries(final.map((m) => [m.contact.mobile.number, m.error.code]));
      assert.deepEqual(codes, { '+15005550001': '21211', '+15005550002': '21612', '+15005550009': '21614' });
      for (const m of final) assert.equal(m.price, 0);
      assert.equal(await balance(a), before);
      const { rows } = await svc.db.query(
        `SELECT failures, price::float8 AS price, status FROM send_jobs WHERE account_id = $1 AND id = $2`,
        [a.accountId, data.jobId],
      );
      assert.deepEqual(rows[0], { failures: 3, price: 0, status: 'completed' });
      for (const m of final)
        assert.equal((await events(a, 'message-status', m.id))[0].error.code, m.error.code);
    });

    it('marks the magic blocked number sent, then undelivered with the carrier error', async () => {
      const data = await send(a, { contacts: toMobiles(['+15005550004']), template: 'blocked' });
      const m = await eventually(async () => {
        const x = await getMessage(a, data.messages[0].id);
        return x.status === 'undelivered' && x;
      });
      assert.equal(m.error.code, '30004');
      assert.deepEqual(
        (await events(a, 'message-sent', m.id)).map((e) => e.status),
        ['sent'],
      );
    });

    it('never moves a status backwards: late, repeated and out-of-order receipts are harmless', async () => {
      const data = await send(a, { contacts: toMobiles([nextMobile()]), template: 'receipts' });
      const id = data.messages[0].id;
      await eventually(async () => (await getMessage(a, id)).status === 'delivered');
      const pmid = SimulatorProvider.providerMessageId(id, 1);
      const at = new Date();
      const changed = await applyStatusUpdates(svc.ctx, [
        { provider: 'simulator', providerMessageId: pmid, status: 'sent', at },
        { provider: 'simulator', providerMessageId: pmid, status: 'delivered', at },
        {
          provider: 'simulator',
          providerMessageId: pmid,
          status: 'failed',
          error: { code: 'X', description: 'late' },
          at,
        },
      ]);
      assert.equal(changed, 0);
      const m = await getMessage(a, id);
      assert.equal(m.status, 'delivered');
      assert.equal(m.error, undefined);
      assert.equal((await events(a, 'message-status', id)).length, 1);
    });

    it("respects each number's throughput across workers (never more sends in one second than its mps)", async () => {
      const acc = await accountAt(svc, 4);
      svc.startWorkers([dispatch]); // a second dispatcher competing for the same number
      const mobiles = Array.from({ length: 14 }, () => nextMobile());
      const data = await send(acc, { contacts: toMobiles(mobiles), template: 'rate limited' });
      await eventually(async () => {
        const { rows } = await svc.db.query(
          `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND job_id = $2 AND status IN ('sent', 'delivered')`,
          [acc.accountId, data.jobId],
        );
        return rows[0].n === 14;
      }, 20_000);
      const { rows } = await svc.db.query(
        `SELECT date_trunc('second', submitted_at) AS s, count(*)::int AS n FROM messages
         WHERE account_id = $1 AND job_id = $2 GROUP BY 1 ORDER BY 1`,
        [acc.accountId, data.jobId],
      );
      assert.ok(rows.length >= 4, `14 messages at 4/s take at least 4 seconds, got ${JSON.stringify(rows)}`);
      for (const r of rows) assert.ok(r.n <= 4, `${r.n} sends in the second ${r.s.toISOString()}`);
    });
  });
});
