import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Config } from '../../src/config.ts';
import { type AppContext, createContext } from '../../src/context.ts';
import { createPool } from '../../src/db/client.ts';
import { dispatchBatch } from '../../src/domain/send/dispatch/dispatch-batch.ts';
import type { OutboundMessage, Provider, SendResult } from '../../src/providers/types.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

const N = 150;
const ACKED = 40;

/** A Twilio-like provider that cannot be asked what it received (no lookup), counting submissions. */
function unaskable(answer: (m: OutboundMessage) => Promise<SendResult>) {
  const submitted: string[] = [];
  const provider: Provider = {
    name: 'twilio',
    send: (m) => {
      submitted.push(m.id);
      return answer(m);
    },
    start: async () => {},
    close: async () => {},
  };
  return { provider, submitted };
}

/** Routes the context's `twilio` numbers to this provider. */
function useProvider(ctx: AppContext, provider: Provider): void {
  const original = ctx.providers.get.bind(ctx.providers);
  ctx.providers.get = (name) => (name === 'twilio' ? provider : original(name));
}

const ok = (m: OutboundMessage): Promise<SendResult> =>
  Promise.resolve({ ok: true, status: 'sent', providerMessageId: `SM-${m.id}-${m.attempt}` });

/**
 * A worker hands N messages to a provider that cannot be asked: it acknowledges ACKED of them and
 * then the worker dies (its connection pool ends; the other submissions never answer). Another
 * worker then dispatches until every message is final. Answers what each phase submitted.
 */
async function workerDiesMidSend(policy: Config['deliveryGuarantee']) {
  const svc = await startTestService({
    deliveryGuarantee: policy,
    dispatchLeaseSeconds: 1,
    // The first worker's one batch takes all N: a range of a provider not seen yet takes
    // DISPATCH_IN_FLIGHT / 4 (domain/send/dispatch/grain.ts).
    dispatchInFlight: 4 * N,
    twilio: {
      baseUrl: 'http://127.0.0.1:9',
      accountSid: 'AC00000000000000000000000000000000',
      authToken: 't',
    },
  });
  services.push(svc);
  const a = await svc.newAccount({ balance: 100 });
  // The test counts the failed messages' message-status events, written only where heard.
  await listenToEvents(svc.db, a.accountId, ['message-status']);
  const rows = Array.from({ length: N }, (_, i) => `US,P${i},+1202${String(5_000_000 + i)}`).join('\n');
  const upload = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
    headers: { ...a.auth, 'content-type': 'text/csv' },
    payload: `country,firstName,mobile\n${rows}\n`,
  });
  assert.equal(upload.statusCode, 201, upload.body);
  const numbers = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth });
  assert.equal(numbers.statusCode, 200, numbers.body);
  const number = body(numbers).data[0];
  const routed = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}/phonenumbers/${number.id}`, {
    auth: a.auth,
    json: { throughput: 1000, provider: 'twilio' },
  });
  assert.equal(routed.statusCode, 200, routed.body);
  // The stand-in provider takes this number's messages; no Twilio answers the verification at
  // 127.0.0.1:9, so the number is marked verified as Twilio would have (an unverified one never sends).
  await svc.db.query('UPDATE phone_numbers SET verified = true WHERE id = $1', [number.id]);
  const send = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
    auth: a.auth,
    json: { filters: { all: true }, template: 'Hi {{{firstName}}}' },
  });
  assert.equal(body(send).data.queued, N);
  const balance = async () =>
    body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, { auth: a.auth })).data
      .balance as number;
  const balanceAfterSend = await balance();
  const count = async (where: string) =>
    Number(
      (
        await svc.db.query(
          `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND outgoing AND ${where}`,
          [a.accountId],
        )
      ).rows[0].n,
    );

  // The first worker: its own pool and providers; acknowledges ACKED submissions, the rest hang.
  const pool = createPool(svc.config.databaseUrl as string, 4);
  const first = createContext(svc.config, pool);
  let answered = 0;
  const dying = unaskable((m) => (answered++ < ACKED ? ok(m) : new Promise<SendResult>(() => {})));
  useProvider(first, dying.provider);
  void dispatchBatch(first).catch(() => {});
  await eventually(async () => dying.submitted.length === N && (await count(`status = 'sent'`)) === ACKED);
  await pool.end().catch(() => {});
  await first.close();

  // The second worker.
  const second = unaskable(ok);
  useProvider(svc.ctx, second.provider);
  const stop = new AbortController();
  await eventually(
    async () => {
      await dispatch.run(svc.ctx, stop.signal);
      return (await count(`status IN ('queued', 'sending')`)) === 0;
    },
    60_000,
    50,
  );
  const perMessage = (body(send).data.estimatedPrice as number) / N;
  return { svc, a, count, balance, balanceAfterSend, perMessage, resubmitted: second.submitted };
}

const services: TestService[] = [];
after(async () => {
  for (const s of services) await s.close();
});

describe('a worker dies with messages in flight to a provider that cannot be asked', () => {
  it('at-most-once: fails the uncertain ones with MSG-020 and refunds them, never resubmits', async () => {
    const r = await workerDiesMidSend('at-most-once');
    assert.equal(r.resubmitted.length, 0, 'nothing submitted twice');
    assert.equal(await r.count(`status = 'sent'`), ACKED);
    assert.equal(await r.count(`status = 'failed' AND error->>'code' = 'MSG-020' AND price = 0`), N - ACKED);
    const failed = await call(
      r.svc.api,
      'GET',
      `/v1/accounts/${r.a.accountId}/messages?status=failed&limit=1`,
      {
        auth: r.a.auth,
      },
    );
    assert.equal(body(failed).data[0].status, 'failed');
    assert.equal(body(failed).data[0].error.code, 'MSG-020');
    assert.ok(r.perMessage > 0);
    const refunded = (await r.balance()) - r.balanceAfterSend;
    assert.ok(Math.abs(refunded - (N - ACKED) * r.perMessage) < 1e-6, `refunded ${refunded}`);
    const events = await r.svc.db.query(
      `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'message-status'`,
      [r.a.accountId],
    );
    assert.equal(events.rows[0].n, N - ACKED, 'one message-status event per failed message');
  });

  it('at-least-once (the default): resubmits the uncertain ones, charged once', async () => {
    const r = await workerDiesMidSend('at-least-once');
    assert.equal(r.resubmitted.length, N - ACKED, 'each uncertain message submitted again, once');
    assert.equal(new Set(r.resubmitted).size, N - ACKED);
    assert.equal(await r.count(`status = 'sent'`), N);
    assert.equal(await r.balance(), r.balanceAfterSend, 'no refund and no second charge');
  });
});
