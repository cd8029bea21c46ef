/**
 * Issue 25, "automation cannot run away": loops between workflows through lists are refused when
 * they are saved (WF-020); a contact that enters workflows too often is stopped (WF-021, on the
 * run); one account's steps a minute are budgeted, so another account's runs are claimed next.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENTRY_DAY_LIMIT, ENTRY_LIMIT } from '../../src/domain/workflows/enroll.ts';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const node = (id: string, type: string, config?: object) => ({ id, type: { id: type }, config });
const edge = (source: string, target: string, value?: string) => ({ source, target, value });

/** trigger.list-joined(from) → remove from `from` → [wait 1 min] → add to `to`. */
function bounce(from: string, to: string, wait = false) {
  const nodes = [
    node('start', 'trigger.list-joined', { listId: from }),
    node('leave', 'action.remove-from-list', { listId: from }),
    ...(wait ? [node('pause', 'action.wait', { delay: { minutes: 1 } })] : []),
    node('join', 'action.add-to-list', { listId: to }),
  ];
  const edges = wait
    ? [edge('start', 'leave'), edge('leave', 'pause'), edge('pause', 'join')]
    : [edge('start', 'leave'), edge('leave', 'join')];
  return { nodes, edges };
}

function helpers(get: () => TestService) {
  let seq = 0;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  return {
    list: async (acc: TestAccount) => {
      const res = await call(get().api, 'POST', `${base(acc)}/lists`, {
        auth: acc.auth,
        json: { name: `L${seq++}` },
      });
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data.id as string;
    },
    contact: async (acc: TestAccount) => {
      const res = await call(get().api, 'POST', `${base(acc)}/contacts`, {
        auth: acc.auth,
        json: { mobile: `+1201${String(6_100_000 + seq++).padStart(7, '0')}`, firstName: 'Ann' },
      });
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data[0].id as string;
    },
    workflow: (acc: TestAccount, definition: object, activate = true) =>
      call(get().api, 'POST', `${base(acc)}/workflows`, {
        auth: acc.auth,
        json: { name: `Flow ${seq++}`, versions: [{ name: 'v1', definition, activate }] },
      }),
    join: async (acc: TestAccount, listId: string, contactId: string) => {
      const res = await call(get().api, 'POST', `${base(acc)}/lists/${listId}/contacts`, {
        auth: acc.auth,
        json: { contactIds: [contactId] },
      });
      assert.ok(res.statusCode < 300, res.body);
    },
    runs: async (acc: TestAccount, workflowId: string) => {
      const res = await call(get().api, 'GET', `${base(acc)}/workflows/${workflowId}/enrollments?limit=100`, {
        auth: acc.auth,
      });
      assert.equal(res.statusCode, 200, res.body);
      return body(res).data as {
        id: string;
        status: string;
        error?: { code: string; description: string };
      }[];
    },
  };
}

describe('runaway automation: loops refused at save time, re-entry bounded', () => {
  let svc: TestService;
  let a: TestAccount;
  const h = helpers(() => svc);

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    svc.startWorkers();
  });
  after(() => svc.close());

  it('refuses two workflows that bounce a contact between two lists with no wait (400 WF-020)', async () => {
    const [l1, l2] = [await h.list(a), await h.list(a)];
    const first = await h.workflow(a, bounce(l1, l2));
    assert.equal(first.statusCode, 201, first.body);
    const second = await h.workflow(a, bounce(l2, l1));
    assert.equal(second.statusCode, 400, second.body);
    assert.equal(body(second).error.code, 'WF-020');
    assert.match(body(second).error.message, /loop/);
    // Saved inactive it is accepted; activating it is the save that closes the loop.
    const draft = await h.workflow(a, bounce(l2, l1), false);
    assert.equal(draft.statusCode, 201, draft.body);
    const wf = body(draft).data;
    const activate = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}/workflows/${wf.id}`, {
      auth: a.auth,
      json: { versions: [{ id: wf.versions[0].id, activate: true }] },
    });
    assert.equal(activate.statusCode, 400, activate.body);
    assert.equal(body(activate).error.code, 'WF-020');
  });

  it('refuses a workflow that re-adds the contact to its own trigger list with no wait', async () => {
    const l = await h.list(a);
    const res = await h.workflow(a, bounce(l, l));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(body(res).error.code, 'WF-020');
  });

  it('stops a loop through a wait by itself: the entry past the bound is a stopped run with WF-021', async () => {
    const l = await h.list(a);
    const created = await h.workflow(a, bounce(l, l, true));
    assert.equal(created.statusCode, 201, created.body);
    const workflowId = body(created).data.id as string;
    const contactId = await h.contact(a);
    await h.join(a, l, contactId);
    // Each minute's wait passes at once (the test moves the timer); the old engine looped forever.
    for (let round = 0; round < ENTRY_LIMIT * 3; round++) {
      const runs = await eventually(async () => {
        const rs = await h.runs(a, workflowId);
        return rs.length > round && !rs.some((r) => r.status === 'active') ? rs : undefined;
      });
      if (!runs.some((r) => r.status === 'waiting')) break;
      await svc.db.query(
        `UPDATE workflow_runs SET due_at = now() - interval '1 second'
          WHERE account_id = $1 AND workflow_id = $2 AND status = 'waiting'`,
        [a.accountId, workflowId],
      );
      await eventually(async () => (await h.runs(a, workflowId)).length > round + 1);
    }
    const runs = await h.runs(a, workflowId);
    assert.equal(runs.length, ENTRY_LIMIT + 1, 'the bound plus the stopped entry');
    const last = runs[0];
    assert.equal(last?.status, 'stopped');
    assert.equal(last?.error?.code, 'WF-021');
    assert.ok(runs.slice(1).every((r) => r.status === 'completed'));
  });

  it('stops the entry of a contact that entered workflows 50 times in a day, however slowly (a loop through waits)', async () => {
    // A loop whose workflows wait a minute at each turn enters a contact once a minute or less:
    // never 10 times in 10 minutes, and it went on all day. Its past day is written here as it
    // would have been: ENTRY_DAY_LIMIT entries, 25 minutes apart.
    const res = await h.workflow(a, {
      nodes: [
        node('t', 'trigger.keyword', { keyword: 'again' }),
        node('m', 'action.send-message', { message: 'ok' }),
      ],
      edges: [edge('t', 'm')],
    });
    assert.equal(res.statusCode, 201, res.body);
    const wf = body(res).data;
    const mobile = '+12016199999';
    const created = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile, firstName: 'Bo' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const contactId = body(created).data[0].id as string;
    await svc.db.query(
      `INSERT INTO workflow_runs (account_id, id, workflow_id, version_id, contact_id, node_id, trigger, status,
                                  entered_at, ended_at)
       SELECT $1, gen_random_uuid(), $2, $3, $4, 'm', 'message-received', 'completed',
              now() - i * interval '25 minutes', now() - i * interval '25 minutes'
         FROM generate_series(1, $5::int) AS i`,
      [a.accountId, wf.id, wf.versions[0].id, contactId, ENTRY_DAY_LIMIT],
    );
    const { rows } = await svc.db.query<{ number: string }>(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
      [a.accountId],
    );
    const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: mobile, to: rows[0].number, text: 'again please' },
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    const stopped = await eventually(async () => {
      const runs = await h.runs(a, wf.id);
      return runs.find((r) => r.status === 'stopped');
    });
    assert.equal(stopped.error?.code, 'WF-021');
    assert.match(stopped.error?.description ?? '', new RegExp(`${ENTRY_DAY_LIMIT} times in 24 hours`));
  });
});

describe("runaway automation: one account's steps a minute are budgeted", () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const h = helpers(() => svc);

  before(async () => {
    // No workers: the test runs the runner's rounds itself, so what a round claims is known.
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  it("claims another account's run once an account has spent its budget, before the account's older runs", async () => {
    const steps = {
      nodes: [
        node('start', 'trigger.manual'),
        node('one', 'action.update-attribute', { attribute: 'x', value: '1' }),
        node('two', 'action.update-attribute', { attribute: 'y', value: '2' }),
      ],
      edges: [edge('start', 'one'), edge('one', 'two')],
    };
    const enrollAll = async (acc: TestAccount, n: number) => {
      const res = await h.workflow(acc, steps);
      assert.equal(res.statusCode, 201, res.body);
      const workflowId = body(res).data.id as string;
      for (let i = 0; i < n; i++) {
        const e = await call(
          svc.api,
          'POST',
          `/v1/accounts/${acc.accountId}/workflows/${workflowId}/enrollments`,
          {
            auth: acc.auth,
            json: { contactId: await h.contact(acc) },
          },
        );
        assert.equal(e.statusCode, 201, e.body);
      }
      return workflowId;
    };
    const wa = await enrollAll(a, 5);
    const wb = await enrollAll(b, 1); // due after all of A's
    const log = () => {};
    // Round 1 (two runs, oldest first): A's first run takes its 3 steps, the second 1 of its budget of 4.
    assert.equal(
      await runDueWorkflows(svc.db, 2, log, { stepsPerMinute: 4, prices: svc.ctx.config.priceTable }),
      2,
    );
    // Round 2: A is out of budget for this minute, so B's run is claimed, not A's older ones.
    assert.equal(
      await runDueWorkflows(svc.db, 2, log, { stepsPerMinute: 4, prices: svc.ctx.config.priceTable }),
      1,
    );
    const bRuns = await h.runs(b, wb);
    assert.deepEqual(
      bRuns.map((r) => r.status),
      ['completed'],
    );
    const aRuns = await h.runs(a, wa);
    assert.equal(aRuns.filter((r) => r.status === 'completed').length, 1);
    assert.equal(
      aRuns.filter((r) => r.status === 'active').length,
      4,
      "A's other runs wait for the next minute",
    );
  });
});
