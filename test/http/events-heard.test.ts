// The send path writes its per-recipient events (contact-created, conversation-started,
// message-sent, message-status) only where the account has a listener for them (migration 0400,
// sparrow_event_heard); every other event type, and what the send itself does, is unchanged.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { dispatch } from '../../src/workers/dispatch.ts';
import { webhookDelivery } from '../../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../../src/workers/webhook-fanout.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const SEND_PATH = ['contact-created', 'conversation-started', 'message-sent', 'message-status'] as const;

/** A webhook destination of our own that answers 200 and keeps every body it is posted. */
async function startReceiver() {
  const received: { type: string; data: { messageObject?: { id: string } } }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString()));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('the send path writes its per-recipient events only where they are heard', () => {
  let svc: TestService;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let seq = 0;
  const nextMobile = () => `+1201${String(8_400_000 + seq++).padStart(7, '0')}`;
  const v1 = (acc: TestAccount, rest: string) => `/v1/accounts/${acc.accountId}${rest}`;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    rx = await startReceiver();
    svc.startWorkers([dispatch, webhookFanOut({ idleMs: 20 }), webhookDelivery({ idleMs: 30 })]);
  });
  after(async () => {
    await svc.close();
    await rx.close();
  });

  const send = async (acc: TestAccount, numbers: string[]) => {
    const res = await call(svc.api, 'POST', v1(acc, '/messages'), {
      auth: acc.auth,
      json: { contacts: numbers.map((number) => ({ mobile: { number } })), template: 'Hello' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data as { jobId: string; queued: number; failed: number; requested: number };
  };
  /** The job's messages once each has its receipt (sent, then delivered by the simulator). */
  const delivered = (acc: TestAccount, jobId: string, n: number) =>
    eventually(async () => {
      const list = body(
        await call(svc.api, 'GET', v1(acc, `/messages?jobId=${jobId}&limit=100`), { auth: acc.auth }),
      );
      const all = list.data as {
        id: string;
        status: string;
        contact: { id: string };
        conversation: { id: string };
      }[];
      return all.length === n && all.every((m) => m.status === 'delivered') ? all : undefined;
    });
  /** The account's event rows by type (every type present, with its count). */
  const eventCounts = async (acc: TestAccount): Promise<Record<string, number>> => {
    const { rows } = await svc.db.query<{ type: string; n: number }>(
      'SELECT type, count(*)::int AS n FROM events WHERE account_id = $1 GROUP BY type',
      [acc.accountId],
    );
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  };
  const sendPathCounts = async (acc: TestAccount) => {
    const all = await eventCounts(acc);
    return Object.fromEntries(SEND_PATH.map((t) => [t, all[t] ?? 0]));
  };
  const subscribe = async (acc: TestAccount, url: string, eventTypes: string[]) => {
    const res = await call(svc.api, 'POST', v1(acc, '/webhooks'), {
      auth: acc.auth,
      json: { url, eventTypes },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data as { id: string };
  };

  it('with no listener: none of the four is written, yet the contacts, conversations and messages are there and go out', async () => {
    const acc = await svc.newAccount({ balance: 10 });
    const numbers = [nextMobile(), nextMobile(), nextMobile()];
    const sent = await send(acc, numbers);
    assert.deepEqual([sent.queued, sent.failed], [3, 0]);
    const messages = await delivered(acc, sent.jobId, 3);
    for (const m of messages) {
      const contact = await call(svc.api, 'GET', v1(acc, `/contacts/${m.contact.id}`), { auth: acc.auth });
      assert.equal(contact.statusCode, 200, contact.body);
      const conversation = await call(svc.api, 'GET', v1(acc, `/conversations/${m.conversation.id}`), {
        auth: acc.auth,
      });
      assert.equal(conversation.statusCode, 200, conversation.body);
    }
    assert.deepEqual(
      body(await call(svc.api, 'GET', v1(acc, `/jobs/${sent.jobId}`), { auth: acc.auth })).data.counts
        .delivered,
      3,
    );
    assert.deepEqual(await sendPathCounts(acc), {
      'contact-created': 0,
      'conversation-started': 0,
      'message-sent': 0,
      'message-status': 0,
    });
  });

  it('with no listener: the send answers and counts as before (an invalid number is one failed recipient)', async () => {
    const acc = await svc.newAccount({ balance: 10 });
    const sent = await send(acc, [nextMobile(), '12345']);
    assert.deepEqual([sent.requested, sent.queued, sent.failed], [2, 1, 1]);
    const job = body(await call(svc.api, 'GET', v1(acc, `/jobs/${sent.jobId}`), { auth: acc.auth })).data;
    assert.equal(job.counts.failed, 1, JSON.stringify(job.counts));
    // A send of invalid numbers only is still a send: each is recorded as a failed message.
    const invalidOnly = await send(acc, ['12345']);
    assert.deepEqual([invalidOnly.requested, invalidOnly.queued, invalidOnly.failed], [1, 0, 1]);
    assert.equal((await sendPathCounts(acc))['message-status'], 0);
  });

  it('a webhook subscribed to message-sent only: message-sent is written, the other three are not', async () => {
    const acc = await svc.newAccount({ balance: 10 });
    await subscribe(acc, 'http://127.0.0.1:9/sent-only', ['message-sent']);
    const sent = await send(acc, [nextMobile(), nextMobile()]);
    await delivered(acc, sent.jobId, 2);
    assert.deepEqual(await sendPathCounts(acc), {
      'contact-created': 0,
      'conversation-started': 0,
      'message-sent': 2,
      'message-status': 0,
    });
  });

  it('an SMPP credential of the account hears message-status: each receipt is written', async () => {
    const acc = await svc.newAccount({ balance: 10 });
    const cred = await call(svc.api, 'POST', v1(acc, '/smpp/credentials'), {
      auth: acc.auth,
      json: { name: 'Bank', throughput: 20 },
    });
    assert.equal(cred.statusCode, 200, cred.body);
    const sent = await send(acc, [nextMobile(), nextMobile()]);
    const messages = await delivered(acc, sent.jobId, 2);
    const { rows } = await svc.db.query<{ id: string; status: string }>(
      `SELECT data->'message'->>'id' AS id, data->'message'->>'status' AS status FROM events
        WHERE account_id = $1 AND type = 'message-status' ORDER BY id`,
      [acc.accountId],
    );
    assert.deepEqual(
      rows.map((r) => [r.id, r.status]).sort(),
      messages.map((m) => [m.id, 'delivered']).sort(),
    );
    assert.deepEqual(await sendPathCounts(acc), {
      'contact-created': 0,
      'conversation-started': 0,
      'message-sent': 0,
      'message-status': 2,
    });
  });

  it('opt-outs are always written, with no listener, and the reports count them', async () => {
    const acc = await svc.newAccount({ balance: 10 });
    const number = nextMobile();
    const sent = await send(acc, [number]);
    const [m] = await delivered(acc, sent.jobId, 1);
    const ours = body(await call(svc.api, 'GET', v1(acc, '/phonenumbers'), { auth: acc.auth })).data[0]
      .number;
    const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: number, to: ours, text: 'STOP' },
    });
    assert.equal(stop.statusCode, 200, stop.body);
    const { rows } = await svc.db.query<{ id: string }>(
      `SELECT data->'contact'->>'id' AS id FROM events WHERE account_id = $1 AND type = 'contact-opt-out'`,
      [acc.accountId],
    );
    assert.deepEqual(
      rows.map((r) => r.id),
      [m.contact.id],
    );
    const report = body(
      await call(svc.api, 'GET', v1(acc, `/reports/summary?jobId=${sent.jobId}`), { auth: acc.auth }),
    ).data;
    assert.equal(report.totals.optOuts, 1);
    assert.equal((await sendPathCounts(acc))['contact-created'], 0);
  });

  it('a webhook subscriber gets every message-sent of a send: one delivery per message', async () => {
    const acc = await svc.newAccount({ balance: 10 });
    const hook = await subscribe(acc, rx.url, ['message-sent']);
    const n = 5;
    const sent = await send(
      acc,
      Array.from({ length: n }, () => nextMobile()),
    );
    const messages = await delivered(acc, sent.jobId, n);
    const got = await eventually(async () => {
      const ids = rx.received.filter((r) => r.type === 'message-sent').map((r) => r.data.messageObject?.id);
      return ids.length >= n ? ids : undefined;
    });
    assert.deepEqual([...got].sort(), messages.map((m) => m.id).sort());
    // One delivery per message, each answered 2xx (recorded just after the answer).
    const deliveries = async () =>
      (
        await svc.db.query<{ n: number; ok: number }>(
          `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'succeeded')::int AS ok
             FROM webhook_deliveries WHERE account_id = $1 AND webhook_id = $2 AND event_type = 'message-sent'`,
          [acc.accountId, hook.id],
        )
      ).rows[0];
    await eventually(async () => (await deliveries()).ok === n);
    assert.deepEqual(await deliveries(), { n, ok: n });
  });
});
