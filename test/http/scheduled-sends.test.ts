import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { task } from '../../src/workers/index.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const scheduledSends = task('scheduled-sends');

describe('POST /v1/accounts/:accountId/messages with sendAt', () => {
  let svc: TestService;
  let seq = 0;
  const nextMobile = () => `+1201${String(7_000_000 + seq++).padStart(7, '0')}`;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const send = (acc: TestAccount, json: object) =>
    call(svc.api, 'POST', `${base(acc)}/messages`, { auth: acc.auth, json });
  const job = async (acc: TestAccount, jobId: string) =>
    call(svc.api, 'GET', `${base(acc)}/jobs/${jobId}`, { auth: acc.auth });
  const cancel = (acc: TestAccount, jobId: string) =>
    call(svc.api, 'PUT', `${base(acc)}/jobs/${jobId}/cancel`, { auth: acc.auth });
  const balance = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `${base(acc)}/balance`, { auth: acc.auth })).data.balance as number;
  const jobMessages = async (acc: TestAccount, jobId: string) =>
    body(await call(svc.api, 'GET', `${base(acc)}/messages?jobId=${jobId}`, { auth: acc.auth })).data as {
      status: string;
    }[];
  const sendDebits = async (acc: TestAccount) =>
    (
      body(await call(svc.api, 'GET', `${base(acc)}/billing/transactions?type=send`, { auth: acc.auth }))
        .data as {
        reference: string;
      }[]
    ).map((t) => t.reference);
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  /** Moves a scheduled job's time into the past, as if its sendAt had come. */
  const makeDue = (acc: TestAccount, jobId: string) =>
    svc.db.query(
      `UPDATE send_jobs SET send_at = now() - interval '1 second' WHERE account_id = $1 AND id = $2`,
      [acc.accountId, jobId],
    );
  const setup = async (balanceAmount = 10) => {
    const acc = await svc.newAccount({ balance: balanceAmount });
    const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
      auth: acc.auth,
      json: { mobile: nextMobile(), firstName: 'Ann' },
    });
    assert.equal(res.statusCode, 201, res.body);
    return { acc, contactId: body(res).data[0].id as string };
  };

  before(async () => {
    svc = await startTestService();
    svc.startWorkers([scheduledSends]);
  });
  after(() => svc.close());

  it('stores the send as a scheduled job: priced now, nothing queued or charged, shown on the job', async () => {
    const { acc, contactId } = await setup();
    const sendAt = inAnHour();
    const before = await balance(acc);
    const res = await send(acc, { contacts: [{ id: contactId }], template: 'Hi {{{firstName}}}', sendAt });
    assert.equal(res.statusCode, 200, res.body);
    const data = body(res).data;
    assert.equal(data.status, 'scheduled');
    assert.equal(data.sendAt, sendAt);
    assert.equal(data.queued, 0);
    assert.equal(data.requested, 1);
    assert.equal(data.valid, 1);
    assert.deepEqual(data.invalid, []);
    assert.ok(data.estimatedPrice > 0);
    assert.deepEqual(data.messages, []);
    assert.equal(await balance(acc), before);
    assert.deepEqual(await jobMessages(acc, data.jobId), []);
    const shown = body(await job(acc, data.jobId)).data;
    assert.equal(shown.id, data.jobId);
    assert.equal(shown.status, 'scheduled');
    assert.equal(shown.sendAt, sendAt);
    assert.equal(shown.submitted, 1);
    assert.equal(shown.price, data.estimatedPrice);
    assert.deepEqual(await sendDebits(acc), [], 'an estimate is not a debit');
  });

  it('sends and charges at sendAt', async () => {
    const { acc, contactId } = await setup();
    const before = await balance(acc);
    const res = await send(acc, { contacts: [{ id: contactId }], template: 'Later', sendAt: inAnHour() });
    assert.equal(res.statusCode, 200, res.body);
    const { jobId, estimatedPrice } = body(res).data;
    await makeDue(acc, jobId);
    const ran = await eventually(async () => {
      const j = body(await job(acc, jobId)).data;
      return j.status !== 'scheduled' ? j : undefined;
    });
    assert.equal(ran.status, 'queued');
    assert.equal(ran.queued, 1);
    const messages = await jobMessages(acc, jobId);
    assert.equal(messages.length, 1);
    assert.equal(Math.round((before - (await balance(acc))) * 1e4), Math.round(estimatedPrice * 1e4));
    assert.deepEqual(await sendDebits(acc), [jobId]);
  });

  it('fails the job with ACCT-002 when the balance no longer covers it at sendAt, and sends nothing', async () => {
    const { acc, contactId } = await setup();
    const res = await send(acc, { contacts: [{ id: contactId }], template: 'Later', sendAt: inAnHour() });
    assert.equal(res.statusCode, 200, res.body);
    const { jobId } = body(res).data;
    await svc.db.query('UPDATE accounts SET balance = 0 WHERE id = $1', [acc.accountId]);
    await makeDue(acc, jobId);
    const ran = await eventually(async () => {
      const j = body(await job(acc, jobId)).data;
      return j.status !== 'scheduled' ? j : undefined;
    });
    assert.equal(ran.status, 'failed');
    assert.equal(ran.error.code, 'ACCT-002');
    assert.deepEqual(await jobMessages(acc, jobId), []);
  });

  it('cancels a scheduled send: nothing is sent, and a second cancel is 409', async () => {
    const { acc, contactId } = await setup();
    const res = await send(acc, { contacts: [{ id: contactId }], template: 'Never', sendAt: inAnHour() });
    const { jobId } = body(res).data;
    const cancelled = await cancel(acc, jobId);
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(body(cancelled).data.status, 'cancelled');
    await makeDue(acc, jobId);
    // A send made after it, and due too, runs: so the worker has passed over the cancelled one.
    const later = body(
      await send(acc, { contacts: [{ id: contactId }], template: 'x', sendAt: inAnHour() }),
    ).data;
    await makeDue(acc, later.jobId);
    await eventually(async () => body(await job(acc, later.jobId)).data.status !== 'scheduled');
    assert.equal(body(await job(acc, jobId)).data.status, 'cancelled');
    assert.deepEqual(await jobMessages(acc, jobId), []);
    const again = await cancel(acc, jobId);
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(body(again).error.code, 'MSG-008');
  });

  it('refuses a sendAt in the past or malformed with 400, and a send the balance cannot cover now with 402', async () => {
    const { acc, contactId } = await setup();
    for (const sendAt of [new Date(Date.now() - 60_000).toISOString(), 'tomorrow', '2026-13-01T00:00:00Z']) {
      const res = await send(acc, { contacts: [{ id: contactId }], template: 'x', sendAt });
      assert.equal(res.statusCode, 400, `${sendAt}: ${res.body}`);
      assert.match(body(res).error.message, /sendAt/);
    }
    const poor = await setup(0);
    const res = await send(poor.acc, {
      contacts: [{ id: poor.contactId }],
      template: 'x',
      sendAt: inAnHour(),
    });
    assert.equal(res.statusCode, 402, res.body);
    assert.equal(body(res).error.code, 'ACCT-002');
  });

  it("answers 404 MSG-007 for an unknown, malformed or another account's job", async () => {
    const { acc, contactId } = await setup();
    const other = await setup();
    const theirs = body(
      await send(other.acc, { contacts: [{ id: other.contactId }], template: 'x', sendAt: inAnHour() }),
    ).data.jobId;
    for (const id of ['01937c1e-0000-7000-8000-00000000abcd', 'nope', theirs]) {
      const got = await job(acc, id);
      assert.equal(got.statusCode, 404, got.body);
      assert.equal(body(got).error.code, 'MSG-007');
      assert.equal((await cancel(acc, id)).statusCode, 404);
    }
    assert.equal(body(await job(other.acc, theirs)).data.status, 'scheduled');
    assert.ok(contactId);
  });
});
