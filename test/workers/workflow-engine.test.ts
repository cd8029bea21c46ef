import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/** A node of a request definition. */
const node = (id: string, type: string, config?: object) => ({ id, type: { id: type }, config });
const edge = (source: string, target: string, value?: string) => ({ source, target, value });

interface Run {
  id: string;
  status: string;
  currentNode: string;
  error: { code: string } | null;
  contact: { id: string };
}

function engineHelpers(get: () => TestService) {
  let seq = 0;
  const h = {
    seq: () => seq++,
    workflow: async (acc: TestAccount, definition: object) => {
      const res = await call(get().api, 'POST', `/v1/accounts/${acc.accountId}/workflows`, {
        auth: acc.auth,
        json: { name: `Flow ${seq++}`, versions: [{ definition, activate: true }] },
      });
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data.id as string;
    },
    mobile: () => `+1201${String(5_500_000 + Math.floor(Math.random() * 400_000) + seq++).padStart(7, '0')}`,
    contact: async (acc: TestAccount, json: object = {}) => {
      const res = await call(get().api, 'POST', `/v1/accounts/${acc.accountId}/contacts`, {
        auth: acc.auth,
        json: { mobile: h.mobile(), firstName: 'Ann', ...json },
      });
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data[0] as { id: string; mobile: { number: string } };
    },
    enroll: async (acc: TestAccount, workflowId: string, contactId: string) => {
      const res = await call(
        get().api,
        'POST',
        `/v1/accounts/${acc.accountId}/workflows/${workflowId}/enrollments`,
        {
          auth: acc.auth,
          json: { contactId },
        },
      );
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data as Run;
    },
    runs: async (acc: TestAccount, workflowId: string): Promise<Run[]> => {
      const res = await call(
        get().api,
        'GET',
        `/v1/accounts/${acc.accountId}/workflows/${workflowId}/enrollments`,
        {
          auth: acc.auth,
        },
      );
      assert.equal(res.statusCode, 200, res.body);
      return body(res).data;
    },
    /** Waits until the workflow's run for the contact matches. */
    runUntil: (acc: TestAccount, workflowId: string, contactId: string, ok: (r: Run) => boolean) =>
      eventually(async () =>
        (await h.runs(acc, workflowId)).find((r) => r.contact.id === contactId && ok(r)),
      ),
    /** Outgoing texts to the contact, oldest first (GET …/messages). */
    sent: async (acc: TestAccount, contactId: string): Promise<string[]> => {
      const res = await call(
        get().api,
        'GET',
        `/v1/accounts/${acc.accountId}/messages?contactId=${contactId}&limit=100`,
        {
          auth: acc.auth,
        },
      );
      assert.equal(res.statusCode, 200, res.body);
      return (body(res).data as { outgoing: boolean; message: string }[])
        .filter((m) => m.outgoing)
        .map((m) => m.message)
        .reverse();
    },
    /** The time passes: the run's wait (delay or reply timeout) is over now. */
    timePasses: async (acc: TestAccount, runId: string) => {
      await get().db.query(
        `UPDATE workflow_runs SET due_at = now() - interval '1 second', wait_until = now() - interval '1 second'
         WHERE account_id = $1 AND id = $2 AND status = 'waiting'`,
        [acc.accountId, runId],
      );
    },
    ourNumber: async (acc: TestAccount) => {
      const { rows } = await get().db.query(
        `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
        [acc.accountId],
      );
      return rows[0].number as string;
    },
    /** An inbound text through the simulator provider's endpoint. */
    inbound: async (acc: TestAccount, from: string, text: string) => {
      const res = await call(get().externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from, to: await h.ourNumber(acc), text },
      });
      assert.equal(res.statusCode, 200, res.body);
    },
  };
  return h;
}

describe('workflow engine (workers running)', () => {
  let svc: TestService;
  const h = engineHelpers(() => svc);

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    svc.startWorkers();
  });
  after(() => svc.close());

  it('a created contact enters trigger.contact-created and gets the message (seen in GET …/messages)', async () => {
    const acc = await svc.newAccount();
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.contact-created'),
        node('hi', 'action.send-message', { message: 'Welcome {{{firstName}}}' }),
      ],
      edges: [edge('t', 'hi')],
    });
    const c = await h.contact(acc, { firstName: 'Zoe' });
    const run = await h.runUntil(acc, wf, c.id, (r) => r.status === 'completed');
    assert.equal(run.currentNode, 'hi');
    assert.deepEqual(await h.sent(acc, c.id), ['Welcome Zoe']);
  });

  it('an event whose contact id is not an id still commits (the enrollment trigger skips it)', async () => {
    const acc = await svc.newAccount();
    await h.workflow(acc, {
      nodes: [node('t', 'trigger.contact-created'), node('hi', 'action.send-message', { message: 'Hi' })],
      edges: [edge('t', 'hi')],
    });
    await svc.db.query(
      `INSERT INTO events (id, account_id, type, data) VALUES (gen_random_uuid(), $1, 'contact-created', '{"id": "junk"}')`,
      [acc.accountId],
    );
    const { rows } = await svc.db.query(
      `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND data ->> 'id' = 'junk'`,
      [acc.accountId],
    );
    assert.equal(rows[0].n, 1);
  });

  it('a wait node holds the run until its time has come, then the next node sends', async () => {
    const acc = await svc.newAccount();
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.manual'),
        node('pause', 'action.wait', { delay: { days: 1, hours: 2, minutes: 3 } }),
        node('later', 'action.send-message', { message: 'A day later' }),
      ],
      edges: [edge('t', 'pause'), edge('pause', 'later')],
    });
    const c = await h.contact(acc);
    const entered = await h.enroll(acc, wf, c.id);
    const waiting = await h.runUntil(acc, wf, c.id, (r) => r.status === 'waiting');
    assert.equal(waiting.currentNode, 'pause');
    const due = new Date((waiting as unknown as { dueAt: string }).dueAt).getTime();
    const expected = Date.now() + ((24 + 2) * 60 + 3) * 60_000;
    assert.ok(Math.abs(due - expected) < 60_000, 'due after the delay');
    assert.deepEqual(await h.sent(acc, c.id), []);

    await h.timePasses(acc, entered.id);
    await h.runUntil(acc, wf, c.id, (r) => r.status === 'completed');
    assert.deepEqual(await h.sent(acc, c.id), ['A day later']);
  });

  it('an inbound text with the keyword as a whole word enrolls its sender; a longer word does not', async () => {
    const acc = await svc.newAccount();
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.keyword', { keyword: 'Join' }),
        node('thanks', 'action.send-message', { message: 'You are in' }),
      ],
      edges: [edge('t', 'thanks')],
    });
    const other = h.mobile();
    await h.inbound(acc, other, 'I rejoined yesterday');
    const from = h.mobile();
    await h.inbound(acc, from, 'please JOIN me');
    const { rows } = await svc.db.query('SELECT id, mobile_number FROM contacts WHERE account_id = $1', [
      acc.accountId,
    ]);
    const sender = rows.find((r) => r.mobile_number === from);
    const bystander = rows.find((r) => r.mobile_number === other);
    await h.runUntil(acc, wf, sender.id, (r) => r.status === 'completed');
    assert.deepEqual(await h.sent(acc, sender.id), ['You are in']);
    assert.ok(!(await h.runs(acc, wf)).some((r) => r.contact.id === bystander.id), 'no run for "rejoined"');
  });

  it('a contact added to the list enters trigger.list-joined', async () => {
    const acc = await svc.newAccount();
    const list = body(
      await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/lists`, {
        auth: acc.auth,
        json: { name: 'VIP' },
      }),
    ).data;
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.list-joined', { listId: list.id }),
        node('m', 'action.send-message', { message: 'VIP only' }),
      ],
      edges: [edge('t', 'm')],
    });
    const c = await h.contact(acc);
    const add = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/lists/${list.id}/contacts`, {
      auth: acc.auth,
      json: { contactIds: [c.id] },
    });
    assert.ok(add.statusCode < 300, add.body);
    await h.runUntil(acc, wf, c.id, (r) => r.status === 'completed');
    assert.deepEqual(await h.sent(acc, c.id), ['VIP only']);
  });

  describe('condition.replied', () => {
    const definition = {
      nodes: [
        node('t', 'trigger.manual'),
        node('ask', 'action.send-message', { message: 'Coming tonight?' }),
        node('r', 'condition.replied', { delay: { hours: 4 } }),
        node('yes', 'action.send-message', { message: 'Thanks for replying' }),
        node('no', 'action.send-message', { message: 'We missed you' }),
      ],
      edges: [edge('t', 'ask'), edge('ask', 'r'), edge('r', 'yes', 'true'), edge('r', 'no', 'false')],
    };

    it('takes the true edge when the contact replies', async () => {
      const acc = await svc.newAccount();
      const wf = await h.workflow(acc, definition);
      const c = await h.contact(acc);
      await h.enroll(acc, wf, c.id);
      await h.runUntil(acc, wf, c.id, (r) => r.status === 'waiting' && r.currentNode === 'r');
      await h.inbound(acc, c.mobile.number, 'yes, see you');
      await h.runUntil(acc, wf, c.id, (r) => r.status === 'completed' && r.currentNode === 'yes');
      assert.deepEqual(await h.sent(acc, c.id), ['Coming tonight?', 'Thanks for replying']);
    });

    it('takes the false (timeout) edge when the time runs out without a reply', async () => {
      const acc = await svc.newAccount();
      const wf = await h.workflow(acc, definition);
      const c = await h.contact(acc);
      const run = await h.enroll(acc, wf, c.id);
      await h.runUntil(acc, wf, c.id, (r) => r.status === 'waiting' && r.currentNode === 'r');
      await h.timePasses(acc, run.id);
      await h.runUntil(acc, wf, c.id, (r) => r.status === 'completed' && r.currentNode === 'no');
      assert.deepEqual(await h.sent(acc, c.id), ['Coming tonight?', 'We missed you']);
    });
  });

  it('an opt-out (STOP) stops the contact’s runs: the pending step never sends', async () => {
    const acc = await svc.newAccount();
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.manual'),
        node('pause', 'action.wait', { delay: { hours: 1 } }),
        node('later', 'action.send-message', { message: 'Promo' }),
      ],
      edges: [edge('t', 'pause'), edge('pause', 'later')],
    });
    const c = await h.contact(acc);
    const run = await h.enroll(acc, wf, c.id);
    await h.runUntil(acc, wf, c.id, (r) => r.status === 'waiting');
    await h.inbound(acc, c.mobile.number, 'STOP');
    const stopped = await h.runUntil(acc, wf, c.id, (r) => r.status === 'stopped');
    assert.equal(stopped.error?.code, 'CONT-010');
    assert.ok(!('dueAt' in stopped), 'a stopped run has no dueAt');
    // Even with its time come, a stopped run is not claimed again.
    await h.timePasses(acc, run.id);
    const { rows } = await svc.db.query(
      'SELECT status, due_at FROM workflow_runs WHERE account_id = $1 AND id = $2',
      [acc.accountId, run.id],
    );
    assert.equal(rows[0].status, 'stopped');
    assert.equal(rows[0].due_at, null);
    assert.ok(!(await h.sent(acc, c.id)).includes('Promo'));
  });

  it('an account that cannot pay ends the run as errored with ACCT-002, and nothing is sent', async () => {
    const acc = await svc.newAccount({ balance: 0 });
    const wf = await h.workflow(acc, {
      nodes: [node('t', 'trigger.manual'), node('m', 'action.send-message', { message: 'Costly' })],
      edges: [edge('t', 'm')],
    });
    const c = await h.contact(acc);
    await h.enroll(acc, wf, c.id);
    const run = await h.runUntil(acc, wf, c.id, (r) => r.status === 'errored');
    assert.equal(run.error?.code, 'ACCT-002');
    assert.equal(run.currentNode, 'm');
    assert.deepEqual(await h.sent(acc, c.id), []);
  });

  it('updates an attribute, branches on it and adds the contact to a list', async () => {
    const acc = await svc.newAccount();
    const list = body(
      await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/lists`, {
        auth: acc.auth,
        json: { name: 'Gold' },
      }),
    ).data;
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.manual'),
        node('set', 'action.update-attribute', { attribute: 'score', value: '42' }),
        node('check', 'condition.attribute', { attribute: 'score', comparator: '>=', value: '9' }),
        node('add', 'action.add-to-list', { listId: list.id }),
        node('end', 'action.end'),
      ],
      edges: [
        edge('t', 'set'),
        edge('set', 'check'),
        edge('check', 'add', 'true'),
        edge('check', 'end', 'false'),
        edge('add', 'end'),
      ],
    });
    const c = await h.contact(acc);
    await h.enroll(acc, wf, c.id);
    await h.runUntil(acc, wf, c.id, (r) => r.status === 'completed' && r.currentNode === 'end');
    const contact = body(
      await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/contacts/${c.id}`, { auth: acc.auth }),
    ).data;
    assert.equal(contact.attributes.score, '42');
    assert.ok(
      contact.lists.some((l: { id: string }) => l.id === list.id),
      'added to the list (42 >= 9 numerically)',
    );
  });

  it('an attribute update that would take a contact past 100 attributes ends the run as errored with CONT-005', async () => {
    const acc = await svc.newAccount();
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.manual'),
        node('set', 'action.update-attribute', { attribute: 'extra', value: 'x' }),
      ],
      edges: [edge('t', 'set')],
    });
    const attributes = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`a${i}`, 'v']));
    const c = await h.contact(acc, { attributes });
    await h.enroll(acc, wf, c.id);
    const run = await h.runUntil(acc, wf, c.id, (r) => r.status === 'errored');
    assert.equal(run.error?.code, 'CONT-005');
    const contact = body(
      await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/contacts/${c.id}`, { auth: acc.auth }),
    ).data;
    assert.equal(contact.attributes.extra, undefined);
  });

  it('a retried step (its step key recorded) does not send twice', async () => {
    const acc = await svc.newAccount();
    const wf = await h.workflow(acc, {
      nodes: [
        node('t', 'trigger.manual'),
        node('m', 'action.send-message', { message: 'Exactly once' }),
        node('pause', 'action.wait', { delay: { hours: 1 } }),
      ],
      edges: [edge('t', 'm'), edge('m', 'pause')],
    });
    const c = await h.contact(acc);
    const run = await h.enroll(acc, wf, c.id);
    await h.runUntil(acc, wf, c.id, (r) => r.status === 'waiting');
    const { rows } = await svc.db.query(
      `SELECT step FROM workflow_steps WHERE account_id = $1 AND run_id = $2 AND node_id = 'm'`,
      [acc.accountId, run.id],
    );
    // As if the worker died after the send committed but before the run moved on: the run is back
    // at the send step, due, with no lease.
    await svc.db.query(
      `UPDATE workflow_runs SET node_id = 'm', step = $3, status = 'active', waiting_for = NULL,
              waiting_since = NULL, wait_until = NULL, due_at = now(), claimed_until = NULL, claim_token = NULL
       WHERE account_id = $1 AND id = $2`,
      [acc.accountId, run.id, rows[0].step],
    );
    await h.runUntil(acc, wf, c.id, (r) => r.status === 'waiting' && r.currentNode === 'pause');
    assert.deepEqual(await h.sent(acc, c.id), ['Exactly once']);
  });
});

describe('workflow runner leases (no workers running)', () => {
  let svc: TestService;
  const h = engineHelpers(() => svc);

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
  });
  after(() => svc.close());

  it('a run claimed by a runner that died is taken over when the lease expires, and sends once', async () => {
    const acc = await svc.newAccount();
    const wf = await h.workflow(acc, {
      nodes: [node('t', 'trigger.manual'), node('m', 'action.send-message', { message: 'Once' })],
      edges: [edge('t', 'm')],
    });
    const c = await h.contact(acc);
    const run = await h.enroll(acc, wf, c.id);
    // A runner claimed it and died: its lease holds the run.
    await svc.db.query(
      `UPDATE workflow_runs SET claimed_until = now() + interval '1 minute', claim_token = gen_random_uuid()
       WHERE account_id = $1 AND id = $2`,
      [acc.accountId, run.id],
    );
    assert.equal(
      await runDueWorkflows(svc.db, 10, svc.ctx.log, { prices: svc.ctx.config.priceTable }),
      0,
      'a held lease is not claimed',
    );
    assert.deepEqual(await h.sent(acc, c.id), []);

    await svc.db.query(
      `UPDATE workflow_runs SET claimed_until = now() - interval '1 second' WHERE account_id = $1 AND id = $2`,
      [acc.accountId, run.id],
    );
    assert.equal(await runDueWorkflows(svc.db, 10, svc.ctx.log, { prices: svc.ctx.config.priceTable }), 1);
    assert.equal(
      await runDueWorkflows(svc.db, 10, svc.ctx.log, { prices: svc.ctx.config.priceTable }),
      0,
      'nothing left to do',
    );
    const [done] = await h.runs(acc, wf);
    assert.equal(done.status, 'completed');
    assert.deepEqual(await h.sent(acc, c.id), ['Once']);
  });
});
