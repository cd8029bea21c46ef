import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('the drip engine, end to end with the workers', () => {
  let svc: TestService;
  let seq = 0;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const drips = (acc: TestAccount, rest = '') => `${base(acc)}/dripcampaigns${rest}`;
  const mobile = () => `+1201${String(7_300_000 + seq++).padStart(7, '0')}`;

  const newList = async (acc: TestAccount) =>
    body(await call(svc.api, 'POST', `${base(acc)}/lists`, { auth: acc.auth, json: { name: `L${seq++}` } }))
      .data.id as string;
  const newContact = async (acc: TestAccount, firstName = 'Ann') => {
    const number = mobile();
    const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
      auth: acc.auth,
      json: { mobile: number, firstName },
    });
    assert.equal(res.statusCode, 201, res.body);
    return { id: body(res).data[0].id as string, number };
  };
  const join = async (acc: TestAccount, listId: string, contactId: string) => {
    const res = await call(svc.api, 'POST', `${base(acc)}/lists/${listId}/contacts`, {
      auth: acc.auth,
      json: { contactIds: [contactId] },
    });
    assert.ok(res.statusCode < 300, res.body);
  };
  const newDrip = async (acc: TestAccount, json: object) => {
    const res = await call(svc.api, 'POST', drips(acc), {
      auth: acc.auth,
      json: { name: `Drip ${seq++}`, activate: true, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const getDrip = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', drips(acc, `/${id}`), { auth: acc.auth })).data;
  /** The newest execution of the drip (of one contact when given), once it exists. */
  const execution = (acc: TestAccount, dripId: string, contactId?: string) =>
    eventually(async () => {
      const qs = contactId ? `?contactId=${contactId}` : '';
      const res = await call(svc.api, 'GET', drips(acc, `/${dripId}/executions${qs}`), { auth: acc.auth });
      return res.statusCode === 200 ? body(res).data : undefined;
    });
  const executionIn = (acc: TestAccount, dripId: string, contactId: string, status: string) =>
    eventually(async () => {
      const e = await execution(acc, dripId, contactId);
      return e.status === status ? e : undefined;
    });
  /** Texts the drip engine sent the contact (compliance auto-replies excluded), oldest first. */
  const texts = async (acc: TestAccount, contactId: string) => {
    const { rows } = await svc.db.query(
      'SELECT body FROM messages WHERE account_id = $1 AND contact_id = $2 AND outgoing AND NOT system ORDER BY created_at, id',
      [acc.accountId, contactId],
    );
    return rows.map((r) => r.body as string);
  };
  const textsReach = (acc: TestAccount, contactId: string, n: number) =>
    eventually(async () => {
      const t = await texts(acc, contactId);
      return t.length >= n ? t : undefined;
    });
  /** Makes the drip's running executions due now (the tests move time through the database). */
  const makeDue = (acc: TestAccount, dripId: string) =>
    svc.db.query(
      `UPDATE workflow_runs SET due_at = now() - interval '1 second'
        WHERE account_id = $1 AND workflow_id = $2 AND status IN ('active', 'waiting')`,
      [acc.accountId, dripId],
    );
  /** Waits until the entry worker has taken every queued cause of the account. */
  const entriesDone = (acc: TestAccount) =>
    eventually(async () => {
      const { rows } = await svc.db.query(
        'SELECT count(*)::int AS n FROM workflow_trigger_queue WHERE account_id = $1',
        [acc.accountId],
      );
      return rows[0].n === 0;
    });
  const ourNumber = async (acc: TestAccount) => {
    const { rows } = await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
      [acc.accountId],
    );
    return rows[0].number as string;
  };
  const inbound = async (acc: TestAccount, from: string, text: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: await ourNumber(acc), text },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const twoSteps = (triggerDelay: object = {}) => ({
    trigger: { type: 'list', delay: triggerDelay },
    messages: [{ message: 'Hi {{{firstName}}}' }, { message: 'Step two', delay: { days: 1 } }],
  });

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    svc.startWorkers();
  });
  after(() => svc.close());

  it('list join: the first message after the trigger delay, the next after its delay, then completed (noAction) after the reply window', async () => {
    const a = await svc.newAccount();
    const listId = await newList(a);
    const d = await newDrip(a, {
      trigger: { type: 'list', listId, delay: { minutes: 10 } },
      messages: [{ message: 'Hi {{{firstName}}}' }, { message: 'Step two', delay: { hours: 1 } }],
    });
    const c = await newContact(a, 'Ann');
    await join(a, listId, c.id);
    const e0 = await execution(a, d.id);
    assert.equal(e0.status, 'active');
    assert.equal(e0.contact.id, c.id);
    assert.equal(Date.parse(e0.due) - Date.parse(e0.entered), 10 * 60_000);
    assert.deepEqual(await texts(a, c.id), [], 'nothing is sent before the delay');

    await makeDue(a, d.id);
    assert.deepEqual(await textsReach(a, c.id, 1), ['Hi Ann']);
    const e1 = await eventually(async () => {
      const e = await execution(a, d.id);
      return e.stepsSent === 1 && e.due ? e : undefined;
    });
    assert.ok(Date.parse(e1.due) > Date.now() + 50 * 60_000, 'the second step waits its hour');
    const { rows } = await svc.db.query(
      'SELECT price, status FROM messages WHERE account_id = $1 AND contact_id = $2 AND outgoing',
      [a.accountId, c.id],
    );
    assert.ok(Number(rows[0].price) > 0, 'priced and charged like any send');

    await makeDue(a, d.id);
    assert.deepEqual(await textsReach(a, c.id, 2), ['Hi Ann', 'Step two']);
    // After its last message it is completed, nothing more due (issue 27: it said active, with a
    // step due); a reply within the reply window would still make it engaged.
    const waiting = await eventually(async () => {
      const e = await execution(a, d.id);
      return e.stepsSent === 2 && e.status === 'completed' ? e : undefined;
    });
    assert.equal(waiting.due, undefined);
    assert.ok(Date.parse(waiting.ended) >= Date.parse(waiting.entered));

    await makeDue(a, d.id);
    await executionIn(a, d.id, c.id, 'completed');
    const drip = await getDrip(a, d.id);
    assert.deepEqual(drip.stats, { entered: 1, active: 0, errored: 0, noAction: 1, optOut: 0, engaged: 0 });
    assert.equal(drip.messages[0].stats.entered, 1);
    assert.equal(drip.messages[1].stats.entered, 1);
    assert.equal(drip.messages[1].stats.noAction, 1);
    assert.deepEqual(await texts(a, c.id), ['Hi Ann', 'Step two']);
  });

  it('a reply ends the execution as engaged, and its later steps are never sent', async () => {
    const a = await svc.newAccount();
    const listId = await newList(a);
    const d = await newDrip(a, { ...twoSteps(), trigger: { type: 'list', listId } });
    const c = await newContact(a, 'Bo');
    await join(a, listId, c.id);
    assert.deepEqual(await textsReach(a, c.id, 1), ['Hi Bo']);
    const active = await execution(a, d.id);
    assert.equal(active.stepsSent, 1);

    await inbound(a, c.number, 'Sounds good, tell me more');
    const engaged = await executionIn(a, d.id, c.id, 'engaged');
    assert.equal(engaged.due, undefined);
    const drip = await getDrip(a, d.id);
    assert.equal(drip.stats.engaged, 1);
    assert.equal(drip.stats.active, 0);
    assert.equal(drip.messages[0].stats.engaged, 1, 'counted against the message replied to');

    // Even with its old time come again, an ended execution sends nothing more.
    await svc.db.query(
      `UPDATE workflow_runs SET due_at = now() - interval '1 minute' WHERE account_id = $1 AND id = $2`,
      [a.accountId, engaged.id],
    );
    await runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable });
    assert.deepEqual(await texts(a, c.id), ['Hi Bo']);
  });

  it('STOP ends the execution as opted-out', async () => {
    const a = await svc.newAccount();
    const listId = await newList(a);
    const d = await newDrip(a, { ...twoSteps(), trigger: { type: 'list', listId } });
    const c = await newContact(a, 'Cy');
    await join(a, listId, c.id);
    await textsReach(a, c.id, 1);
    await inbound(a, c.number, 'STOP');
    await executionIn(a, d.id, c.id, 'opted-out');
    const drip = await getDrip(a, d.id);
    assert.equal(drip.stats.optOut, 1);
    assert.equal(drip.stats.engaged, 0, 'an opt-out is not engagement');
    assert.equal(drip.messages[0].stats.optOut, 1);
    assert.deepEqual(await texts(a, c.id), ['Hi Cy']);
  });

  it('keyword trigger: a text equal to the keyword (any case) starts the drip for its sender; it is not a reply', async () => {
    const a = await svc.newAccount();
    const d = await newDrip(a, {
      trigger: { type: 'keyword', message: 'Join' },
      messages: [{ message: 'Thanks for joining' }, { message: 'Later', delay: { days: 2 } }],
    });
    const from = mobile();
    await inbound(a, from, 'join');
    const e = await execution(a, d.id);
    assert.equal(e.contact.mobile.number, from);
    assert.deepEqual(await textsReach(a, e.contact.id, 1), ['Thanks for joining']);
    const running = await eventually(async () => {
      const x = await execution(a, d.id);
      return x.stepsSent === 1 ? x : undefined;
    });
    assert.equal(running.status, 'active');

    // The keyword again: neither a reply nor a second run.
    await inbound(a, from, 'JOIN!');
    await entriesDone(a);
    const res = body(await call(svc.api, 'GET', drips(a, `/${d.id}/executions`), { auth: a.auth }));
    assert.equal(res.pagination.totalCount, 1);
    assert.equal(res.data.status, 'active');

    // Another word is not the keyword: nobody new enters; from a running contact it is a reply.
    await inbound(a, mobile(), 'joined');
    await inbound(a, from, 'ok');
    await executionIn(a, d.id, e.contact.id, 'engaged');
    await entriesDone(a);
    assert.equal((await getDrip(a, d.id)).stats.entered, 1);
  });

  it('contact-created trigger: a new contact enters and gets the first message', async () => {
    const a = await svc.newAccount();
    const d = await newDrip(a, {
      trigger: { type: 'contact-created' },
      messages: [{ message: 'Welcome aboard' }],
    });
    const c = await newContact(a);
    assert.deepEqual(await textsReach(a, c.id, 1), ['Welcome aboard']);
    assert.equal((await execution(a, d.id)).contact.id, c.id);
  });

  it('a send that cannot be queued (402: no balance) ends the execution as errored, with the code', async () => {
    const a = await svc.newAccount({ balance: 0 });
    const d = await newDrip(a, { trigger: { type: 'contact-created' }, messages: [{ message: 'Hello' }] });
    const c = await newContact(a);
    const e = await executionIn(a, d.id, c.id, 'errored');
    assert.equal(e.error.code, 'ACCT-002');
    assert.deepEqual(await texts(a, c.id), []);
    const drip = await getDrip(a, d.id);
    assert.equal(drip.stats.errored, 1);
    assert.equal(drip.messages[0].stats.errored, 1);
  });

  it('maxDuration ends an execution that outlives it (expired)', async () => {
    const a = await svc.newAccount();
    const listId = await newList(a);
    const d = await newDrip(a, { ...twoSteps(), trigger: { type: 'list', listId }, maxDuration: 1 });
    const c = await newContact(a);
    await join(a, listId, c.id);
    await textsReach(a, c.id, 1);
    const e = await eventually(async () => {
      const x = await execution(a, d.id);
      return x.stepsSent === 1 && x.due ? x : undefined;
    });
    // The next step (in 1 day) would come exactly at the 1-day limit: it is due then, and expires.
    assert.equal(Date.parse(e.due) - Date.parse(e.entered), 86_400_000);
    await svc.db.query(
      `UPDATE workflow_runs SET entered_at = now() - interval '2 days', due_at = now() - interval '1 second'
       WHERE account_id = $1 AND id = $2`,
      [a.accountId, e.id],
    );
    await executionIn(a, d.id, c.id, 'expired');
    assert.deepEqual(await texts(a, c.id), ['Hi Ann']);
  });

  it('sends a step at most once, even when runners race for it or a crashed runner’s lease runs out', async () => {
    const a = await svc.newAccount();
    const listId = await newList(a);
    const d = await newDrip(a, {
      ...twoSteps({ days: 1 }),
      trigger: { type: 'list', listId, delay: { days: 1 } },
    });
    const c = await newContact(a, 'Di');
    await join(a, listId, c.id);
    const e = await execution(a, d.id);

    // A runner claims it and dies: the lease keeps every other runner off until it ends.
    await svc.db.query(
      `UPDATE workflow_runs SET due_at = now() - interval '1 second', claimed_until = now() + interval '1 hour'
       WHERE account_id = $1 AND id = $2`,
      [a.accountId, e.id],
    );
    await runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable });
    assert.deepEqual(await texts(a, c.id), []);

    // Its lease over, two runners and the background worker go for the same step at once.
    await svc.db.query(
      `UPDATE workflow_runs SET claimed_until = now() - interval '1 second' WHERE account_id = $1 AND id = $2`,
      [a.accountId, e.id],
    );
    await Promise.all([
      runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable }),
      runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable }),
    ]);
    await eventually(async () => (await execution(a, d.id)).stepsSent === 1);
    await runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable });
    assert.deepEqual(await texts(a, c.id), ['Hi Di']);
    const sends = await svc.db.query(
      `SELECT count(*)::int AS n FROM workflow_steps WHERE account_id = $1 AND run_id = $2 AND node_id LIKE 'send-%'`,
      [a.accountId, e.id],
    );
    assert.equal(sends.rows[0].n, 1);
  });
});
