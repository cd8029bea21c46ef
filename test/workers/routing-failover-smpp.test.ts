import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assignNumber } from '../../src/domain/numbers/number-assignments.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';
import { RecordingSmsc } from '../support/recording-smsc.ts';

const N = 300;
/** Submissions carrier A acknowledges before it goes down. */
const ACKED_BY_A = 100;

/**
 * Two SMPP carriers configured as named instances (PROVIDERS), on a route that lists both in
 * order. Carrier A goes down in the middle of a bulk send: after acknowledging ACKED_BY_A
 * submissions it answers nothing more and closes its connection and its listener. What A
 * acknowledged stays there; what A received without answering is of unknown fate and stays with A
 * (retried there, refused since A is down, and only then moved); everything else moves to B at
 * once. Neither SMSC deduplicates, and they hand out the same message ids (1, 2, 3…), so a receipt
 * reaches its message only if it is matched by the instance that sent it.
 */
describe('failover between two SMPP carriers (named instances), the first stopped mid-send', () => {
  const a = new RecordingSmsc('sparrow-a', 'secret-a');
  const b = new RecordingSmsc('sparrow-b', 'secret-b');
  let svc: TestService;
  let acc: TestAccount;

  before(async () => {
    const [urlA, urlB] = await Promise.all([a.listen(), b.listen()]);
    svc = await startTestService(
      {},
      {
        env: {
          PROVIDERS: JSON.stringify([
            {
              name: 'carrier-a',
              kind: 'smpp',
              url: urlA,
              systemId: 'sparrow-a',
              password: 'secret-a',
              windowSize: 10,
              maxPerSecond: 0,
            },
            {
              name: 'carrier-b',
              kind: 'smpp',
              url: urlB,
              systemId: 'sparrow-b',
              password: 'secret-b',
              windowSize: 10,
              maxPerSecond: 0,
            },
          ]),
        },
      },
    );
    acc = await svc.newAccount({ balance: 1000 });
    // The test counts acc's message-sent and message-status events, written only where heard.
    await listenToEvents(svc.db, acc.accountId, ['message-sent', 'message-status']);
    svc.startWorkers([dispatch]);
  });
  after(async () => {
    await svc.close();
    await a.close();
    await b.close();
  });

  it('sends every message once, keeps what A may hold with A, records the instance and applies each SMSC’s receipts', async () => {
    await eventually(
      async () =>
        svc.ctx.providers.get('carrier-a')?.linkUp?.() && svc.ctx.providers.get('carrier-b')?.linkUp?.(),
    );
    const number = body(
      await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, { auth: acc.auth }),
    ).data[0];
    const put = await call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}/phonenumbers/${number.id}`, {
      auth: acc.auth,
      json: { throughput: 1000 },
    });
    assert.equal(put.statusCode, 200, put.body);
    // The operator assigned the number on both carriers: else neither would send it (issue 28).
    for (const provider of ['carrier-a', 'carrier-b'])
      await assignNumber(
        svc.db,
        { accountId: acc.accountId, number: number.number, provider },
        { id: 'test' },
      );
    const route = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/routes`, {
      auth: acc.auth,
      json: {
        prefix: '1',
        providers: [
          { provider: 'carrier-a', priority: 1 },
          { provider: 'carrier-b', priority: 2 },
        ],
      },
    });
    assert.equal(route.statusCode, 201, route.body);

    a.stopAfter(ACKED_BY_A);
    const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_000_000 + i)}`);
    const send = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: { contacts: mobiles.map((m) => ({ mobile: { number: m } })), template: 'Two carriers' },
    });
    assert.equal(send.statusCode, 200, send.body);
    assert.equal(body(send).data.queued, N);

    await a.stopped;
    // Every message delivered: sent once, and its SMSC's receipt applied to it.
    const rows = await eventually(async () => {
      const { rows } = await svc.db.query<{
        id: string;
        to_number: string;
        from_number: string;
        status: string;
        provider: string;
        attempts: number;
      }>(
        `SELECT id, to_number, from_number, status, provider, attempts FROM messages
         WHERE account_id = $1 AND outgoing`,
        [acc.accountId],
      );
      return rows.length === N && rows.every((r) => r.status === 'delivered') && rows;
    }, 90_000);

    // At the carriers: A acknowledged exactly ACKED_BY_A, B acknowledged the rest, nobody twice.
    const ackedA = a.acknowledged();
    const ackedB = b.acknowledged();
    assert.equal(ackedA.length, ACKED_BY_A);
    assert.equal(b.unacknowledged().length, 0);
    assert.deepEqual([...ackedA, ...ackedB].sort(), [...mobiles].sort());
    // A destination reached both SMSCs only where A never acknowledged it (unknown fate at A).
    const unackedA = new Set(a.unacknowledged());
    assert.ok(unackedA.size > 0, 'A went down holding unanswered submissions');
    const atA = a.received.map((r) => r.to);
    assert.equal(new Set(atA).size, atA.length, 'A received no destination twice');
    for (const to of ackedB) if (atA.includes(to)) assert.ok(unackedA.has(to), `${to} went to both`);
    // The sender stays the message's number on both carriers.
    assert.deepEqual(new Set([...a.received, ...b.received].map((r) => r.from)), new Set([number.number]));

    const acceptedByA = new Set(ackedA);
    for (const r of rows) {
      assert.equal(r.from_number, number.number);
      assert.equal(r.provider, acceptedByA.has(r.to_number) ? 'carrier-a' : 'carrier-b', r.to_number);
      // Unknown fate at A: a second attempt at A (refused: A is down) before it moved to B.
      if (unackedA.has(r.to_number)) assert.ok(r.attempts >= 3, `${r.to_number}: ${r.attempts} attempts`);
    }
    // The API shows the instance that took it.
    for (const name of ['carrier-a', 'carrier-b']) {
      const r = rows.find((x) => x.provider === name);
      const got = await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages/${r?.id}`, {
        auth: acc.auth,
      });
      assert.equal(body(got).data.provider, name);
      assert.equal(body(got).data.status, 'delivered');
    }
    const events = await svc.db.query<{ type: string; n: number }>(
      `SELECT type, count(*)::int AS n FROM events WHERE account_id = $1 AND type IN ('message-sent', 'message-status')
       GROUP BY type ORDER BY type`,
      [acc.accountId],
    );
    assert.deepEqual(
      events.rows.map((e) => [e.type, e.n]),
      [
        ['message-sent', N],
        ['message-status', N],
      ],
    );
  });
});
