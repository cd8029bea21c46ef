import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { handleTriggers } from '../../src/domain/workflows/handle-triggers.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * Drips and workflows share one entry path (the workflow engine's), so they agree on double
 * opt-in: a pending membership starts nothing, and the member's YES (the confirmation) starts both.
 * The enroll step is run by hand (no workers), so every assertion is about a settled state.
 */
describe('double opt-in lists: drips and workflows start on confirmation only', () => {
  let svc: TestService;
  let acc: TestAccount;
  let base: string;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    acc = await svc.newAccount();
    base = `/v1/accounts/${acc.accountId}`;
  });
  after(() => svc.close());

  const post = async (path: string, json: object, status = 201) => {
    const res = await call(svc.api, 'POST', `${base}${path}`, { auth: acc.auth, json });
    assert.equal(res.statusCode, status, res.body);
    return body(res).data;
  };
  /** Causes queued for the engine about the contact (written by the triggers in the cause's transaction). */
  const queued = async (contactId: string) => {
    const { rows } = await svc.db.query<{ kind: string }>(
      'SELECT kind FROM workflow_trigger_queue WHERE account_id = $1 AND contact_id = $2 ORDER BY id',
      [acc.accountId, contactId],
    );
    return rows.map((r) => r.kind);
  };
  const drain = async () => {
    while ((await handleTriggers(svc.db, 100, svc.ctx.log)) > 0);
  };
  const enrollments = async (workflowId: string) =>
    body(await call(svc.api, 'GET', `${base}/workflows/${workflowId}/enrollments`, { auth: acc.auth }))
      .data as {
      contact: { id: string };
      status: string;
    }[];
  const execution = (dripId: string) =>
    call(svc.api, 'GET', `${base}/dripcampaigns/${dripId}/executions`, { auth: acc.auth });
  const ourNumber = async () => {
    const { rows } = await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
      [acc.accountId],
    );
    return rows[0].number as string;
  };

  it('an unconfirmed member enters neither; answering YES confirms the membership and enters both', async () => {
    const list = await post('/lists', {
      name: 'Confirmed only',
      doubleOptIn: { enabled: true, prompt: 'Reply YES' },
    });
    const drip = await post('/dripcampaigns', {
      name: 'Welcome',
      trigger: { type: 'list', listId: list.id, delay: { days: 1 } },
      messages: [{ message: 'Welcome aboard' }],
      activate: true,
    });
    const wf = await post('/workflows', {
      name: 'List flow',
      versions: [
        {
          activate: true,
          definition: {
            nodes: [
              { id: 't', type: { id: 'trigger.list-joined' }, config: { listId: list.id } },
              { id: 'w', type: { id: 'action.wait' }, config: { delay: { days: 1 } } },
              { id: 'm', type: { id: 'action.send-message' }, config: { message: 'Tomorrow' } },
            ],
            edges: [
              { source: 't', target: 'w' },
              { source: 'w', target: 'm' },
            ],
          },
        },
      ],
    });
    const mobile = '+12017250001';
    const [contact] = await post('/contacts', { mobile });
    await post(`/lists/${list.id}/contacts`, { contactIds: [contact.id] }, 200);

    // Pending: the join queued nothing, so nothing can start.
    assert.deepEqual(await queued(contact.id), []);
    await drain();
    const none = await execution(drip.id);
    assert.equal(none.statusCode, 404, none.body);
    assert.equal(body(none).error.code, 'DRIP-002');
    assert.deepEqual(await enrollments(wf.id), []);
    const pending = body(
      await call(svc.api, 'GET', `${base}/contacts/${contact.id}`, { auth: acc.auth }),
    ).data;
    assert.equal(pending.lists[0].optIn, undefined);

    // The member answers YES: the membership is confirmed, which queues the join.
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: mobile, to: await ourNumber(), text: 'YES' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const confirmed = body(
      await call(svc.api, 'GET', `${base}/contacts/${contact.id}`, { auth: acc.auth }),
    ).data;
    assert.ok(Date.parse(confirmed.lists[0].optIn) > 0, 'the membership carries its opt-in time');
    assert.ok((await queued(contact.id)).includes('list-joined'));

    await drain();
    const entered = await execution(drip.id);
    assert.equal(entered.statusCode, 200, entered.body);
    assert.equal(body(entered).data.contact.id, contact.id);
    assert.equal(body(entered).data.status, 'active');
    const runs = await enrollments(wf.id);
    assert.deepEqual(
      runs.map((r) => [r.contact.id, r.status]),
      [[contact.id, 'waiting']],
    );

    // A second YES confirms nothing new and starts nothing twice.
    await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: mobile, to: await ourNumber(), text: 'yes' },
    });
    await drain();
    assert.equal(body(await execution(drip.id)).pagination.totalCount, 1);
    assert.equal((await enrollments(wf.id)).length, 1);
  });
});
