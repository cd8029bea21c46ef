import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OutboundMessage } from '../../src/providers/types.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { task } from '../../src/workers/index.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

const messageExpiry = task('message-expiry');

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Validity periods at dispatch: a message whose validity ended before it was handed to the
 * carrier fails with MSG-012 and its price comes back once, whether the sweep or the dispatcher
 * finds it first, and the carrier never sees it. Time is moved by setting `expires_at` in the past
 * (what the passing of the validity does), never by waiting.
 */
describe('message expiry', () => {
  let svc: TestService;
  let seq = 0;
  const nextMobile = () => `+1201${String(7_200_000 + seq++).padStart(7, '0')}`;
  /** Every message the simulator was handed, by id. */
  const handed = new Map<string, OutboundMessage>();

  before(async () => {
    svc = await startTestService();
    const sim = svc.ctx.providers.simulator;
    const sendMany = sim.sendMany.bind(sim);
    sim.sendMany = (messages: OutboundMessage[]) => {
      for (const m of messages) handed.set(m.id, m);
      return sendMany(messages);
    };
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
  const balance = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth })).data
      .balance as number;
  const message = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages/${id}`, { auth: acc.auth })).data;
  const job = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/jobs/${id}`, { auth: acc.auth })).data;
  const statusEvents = async (acc: TestAccount, id: string) =>
    (
      await svc.db.query(
        `SELECT sparrow_event_payload(e) AS data FROM events e
         WHERE account_id = $1 AND type = 'message-status' AND data->'message'->>'id' = $2`,
        [acc.accountId, id],
      )
    ).rows.map((r) => r.data);
  /** The validity of these messages ends now (as if their validityPeriod had passed). */
  const expire = (acc: TestAccount, ids: string[]) =>
    svc.db.query(
      `UPDATE messages SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND id = ANY($2)`,
      [acc.accountId, ids],
    );
  const runSweep = () => messageExpiry.run(svc.ctx, new AbortController().signal);
  const runDispatch = () => dispatch.run(svc.ctx, new AbortController().signal);

  it('the sweep fails expired bulk messages with MSG-012, refunds them once and never submits them', async () => {
    const a = await svc.newAccount({ balance: 10 });
    // The test reads the expired messages' message-status events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['message-status']);
    const start = await balance(a);
    const data = await send(a, {
      contacts: [nextMobile(), nextMobile(), nextMobile()].map((number) => ({ mobile: { number } })),
      template: 'expiring',
      validityPeriod: 600,
    });
    const ids: string[] = data.messages.map((m: { id: string }) => m.id);
    assert.equal(round4(start - (await balance(a))), round4(data.estimatedPrice));
    await expire(a, ids);

    await runSweep();
    for (const id of ids) {
      const m = await message(a, id);
      assert.equal(m.status, 'failed');
      assert.equal(m.error.code, 'MSG-012');
      assert.equal(m.price, 0);
    }
    assert.equal(await balance(a), start);
    const j = await job(a, data.jobId);
    assert.equal(j.failures, 3);
    assert.equal(j.status, 'completed');

    // Later rounds of the sweep and of the dispatcher change nothing: the refund was made once.
    await runSweep();
    await runDispatch();
    await runSweep();
    assert.equal(await balance(a), start);
    for (const id of ids) {
      assert.equal((await statusEvents(a, id)).length, 1, 'one message-status event');
      assert.equal(handed.has(id), false, 'never handed to the carrier');
      assert.equal(svc.ctx.providers.simulator.acceptedAttempts(id), 0);
    }
  });

  it('the dispatcher checks expiry before submitting: an expired message fails and is refunded, not sent', async () => {
    const a = await svc.newAccount({ balance: 10 });
    // The test reads the expired messages' message-status events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['message-status']);
    const start = await balance(a);
    const data = await send(a, {
      contacts: [{ mobile: { number: nextMobile() } }, { mobile: { number: nextMobile() } }],
      template: 'two, one expired',
      validityPeriod: 600,
    });
    const [gone, kept] = data.messages.map((m: { id: string }) => m.id);
    await expire(a, [gone]);
    await eventually(async () => {
      await runDispatch();
      return (await message(a, kept)).status !== 'queued';
    });
    const g = await message(a, gone);
    assert.equal(g.status, 'failed');
    assert.equal(g.error.code, 'MSG-012');
    assert.equal(handed.has(gone), false);
    assert.ok(handed.has(kept), 'the other message went');
    // Only the sent one is paid for.
    assert.equal(round4(start - (await balance(a))), round4(data.estimatedPrice / 2));
    await runSweep();
    assert.equal(round4(start - (await balance(a))), round4(data.estimatedPrice / 2));
    assert.equal((await statusEvents(a, gone)).length, 1);
  });

  it('hands the carrier what is left of the validity, in seconds', async () => {
    const a = await svc.newAccount({ balance: 10 });
    const data = await send(a, {
      contacts: [{ mobile: { number: nextMobile() } }],
      template: 'validity goes along',
      validityPeriod: 120,
    });
    const id = data.messages[0].id;
    const none = await send(a, { contacts: [{ mobile: { number: nextMobile() } }], template: 'no validity' });
    await eventually(async () => {
      await runDispatch();
      return handed.has(id) && handed.has(none.messages[0].id);
    });
    const v = handed.get(id)?.validityPeriod as number;
    assert.ok(v >= 1 && v <= 120, `validityPeriod ${v}`);
    assert.equal(handed.get(none.messages[0].id)?.validityPeriod, undefined);
  });

  it('the sweep expires a message waiting in the per-message queue (a retry) with one refund', async () => {
    const a = await svc.newAccount({ balance: 10 });
    // The test reads the expired messages' message-status events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['message-status']);
    const start = await balance(a);
    const data = await send(a, {
      contacts: [{ mobile: { number: nextMobile() } }],
      template: 'waiting for a retry',
      validityPeriod: 600,
    });
    const id = data.messages[0].id;
    // As a retryable failure leaves it: back in the per-message queue, due later.
    await svc.db.query(
      `UPDATE messages SET bulk = false, attempts = 1, not_before = now() + interval '1 hour',
              expires_at = now() - interval '1 second'
       WHERE account_id = $1 AND id = $2`,
      [a.accountId, id],
    );
    await runSweep();
    const m = await message(a, id);
    assert.equal(m.status, 'failed');
    assert.equal(m.error.code, 'MSG-012');
    assert.equal(await balance(a), start);
    await runSweep();
    await runDispatch();
    assert.equal(await balance(a), start);
    assert.equal((await statusEvents(a, id)).length, 1);
    assert.equal(handed.has(id), false);
  });

  it('leaves messages whose validity has not ended, and another account’s messages, alone', async () => {
    const a = await svc.newAccount({ balance: 10 });
    const other = await svc.newAccount({ balance: 10 });
    const mine = await send(a, {
      contacts: [{ mobile: { number: nextMobile() } }],
      template: 'later',
      validityPeriod: 600,
    });
    const theirs = await send(other, {
      contacts: [{ mobile: { number: nextMobile() } }],
      template: 'theirs',
      validityPeriod: 600,
    });
    await expire(a, [mine.messages[0].id]);
    await runSweep();
    assert.equal((await message(a, mine.messages[0].id)).status, 'failed');
    assert.equal((await message(other, theirs.messages[0].id)).status, 'queued');
  });
});
