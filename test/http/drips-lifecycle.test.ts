import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { dripHelpers, startDripService } from './drips-support.ts';

const NOT_A_VERSION = '01937c1e-0000-7000-8000-00000000abcd';

describe('drip campaign executions, deactivation and migration', () => {
  let svc: TestService;
  let a: TestAccount;
  const { base, drips, newList, newContact, join, dripBody, create, get, execution } = dripHelpers(() => svc);

  before(async () => {
    ({ svc, a } = await startDripService());
  });
  after(() => svc.close());

  describe('GET /v1/accounts/:accountId/dripcampaigns/:dripCampaignId/executions', () => {
    it('answers the execution at `offset`, newest first, with the contact and a one-item page; filters; 404 past the end', async () => {
      const listId = await newList(a);
      const d = await create(a, dripBody(listId, { activate: true }));
      const none = await execution(a, d.id);
      assert.equal(none.statusCode, 404);
      assert.equal(body(none).error.code, 'DRIP-002');

      const c1 = await newContact(a);
      await join(a, listId, [c1]);
      await eventually(async () => (await execution(a, d.id)).statusCode === 200);
      const c2 = await newContact(a);
      await join(a, listId, [c2]);
      const newest = await eventually(async () => {
        const r = body(await execution(a, d.id));
        return r.pagination.totalCount === 2 ? r : undefined;
      });
      assert.equal(newest.success, true);
      assert.deepEqual(newest.pagination, { limit: 1, offset: 0, hasNext: true, totalCount: 2 });
      assert.equal(newest.data.contact.id, c2);
      assert.equal(newest.data.status, 'active');
      assert.ok(Date.parse(newest.data.entered) > 0);
      assert.equal(newest.data.contact.lists[0].id, listId);
      // Due a day after entry (the trigger delay).
      const wait = Date.parse(newest.data.due) - Date.parse(newest.data.entered);
      assert.equal(wait, 86_400_000);

      const older = body(await execution(a, d.id, '?offset=1&versionId=whatever'));
      assert.equal(older.data.contact.id, c1);
      assert.deepEqual(older.pagination, { limit: 1, offset: 1, hasNext: false, totalCount: 2 });
      const past = await execution(a, d.id, '?offset=2');
      assert.equal(past.statusCode, 404);
      assert.equal(body(past).error.code, 'DRIP-002');

      const byContact = body(await execution(a, d.id, `?contactId=${c1}`));
      assert.equal(byContact.data.contact.id, c1);
      assert.equal(byContact.pagination.totalCount, 1);
      assert.equal((await execution(a, d.id, '?status=engaged')).statusCode, 404);
      assert.equal(body(await execution(a, d.id, '?status=active')).pagination.totalCount, 2);

      // Joining again while running does not start a second execution.
      await call(svc.api, 'DELETE', `${base(a)}/lists/${listId}/contacts/${c1}`, { auth: a.auth });
      await join(a, listId, [c1]);
      const stats = await eventually(async () => {
        const { rows } = await svc.db.query(
          'SELECT count(*)::int AS n FROM workflow_trigger_queue WHERE account_id = $1',
          [a.accountId],
        );
        return rows[0].n === 0 ? (await get(a, d.id)).stats : undefined;
      });
      assert.equal(stats.entered, 2);
      assert.equal(stats.active, 2);
    });

    it('shows an execution that sent its last message as completed, with no step due (a reply still makes it engaged)', async () => {
      const listId = await newList(a);
      const d = await create(a, dripBody(listId, { activate: true }));
      const c1 = await newContact(a);
      await join(a, listId, [c1]);
      await eventually(async () => (await execution(a, d.id)).statusCode === 200);
      // Every wait made due at once, the runner run until the run is past its last message.
      await eventually(async () => {
        await svc.db.query(
          `UPDATE workflow_runs SET due_at = now() - interval '1 minute'
            WHERE account_id = $1 AND workflow_id = $2 AND node_id <> 'end'`,
          [a.accountId, d.id],
        );
        await runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable });
        const { rows } = await svc.db.query(
          `SELECT node_id, status FROM workflow_runs WHERE account_id = $1 AND workflow_id = $2`,
          [a.accountId, d.id],
        );
        return rows[0].node_id === 'end' && rows[0].status === 'waiting';
      });
      const done = body(await execution(a, d.id)).data;
      assert.equal(done.status, 'completed', 'not active after its last message');
      assert.equal(done.due, undefined, 'no next step due');
      assert.ok(Date.parse(done.ended) >= Date.parse(done.entered));
      assert.equal(done.stepsSent, d.messages.length);
      assert.equal((await get(a, d.id)).stats.active, 0);
      assert.equal(body(await execution(a, d.id, '?status=completed')).data.id, done.id);
    });

    it('refuses a bad offset or status with 400', async () => {
      const d = await create(a, dripBody(await newList(a)));
      for (const qs of ['?offset=-1', '?offset=x', '?status=sleeping']) {
        const res = await execution(a, d.id, qs);
        assert.equal(res.statusCode, 400, qs);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });
  });

  describe('PUT /v1/accounts/:accountId/dripcampaigns/:dripCampaignId/deactivate', () => {
    it('deactivates: no new entries, running executions stopped and their steps never sent; activating resumes entries only', async () => {
      const listId = await newList(a);
      const d = await create(a, dripBody(listId, { activate: true }));
      const c1 = await newContact(a);
      await join(a, listId, [c1]);
      await eventually(async () => (await execution(a, d.id)).statusCode === 200);

      const res = await call(svc.api, 'PUT', drips(a, `/${d.id}/deactivate`), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res), { success: true });
      const after = await get(a, d.id);
      assert.equal(after.active, false);
      const stopped = body(await execution(a, d.id)).data;
      assert.equal(stopped.status, 'stopped');
      assert.equal(stopped.due, undefined);

      // Even with its time come, a stopped execution's step is not sent.
      await svc.db.query(
        `UPDATE workflow_runs SET due_at = now() - interval '1 minute' WHERE account_id = $1 AND workflow_id = $2`,
        [a.accountId, d.id],
      );
      await runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable });
      const sent = await svc.db.query(
        'SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND contact_id = $2',
        [a.accountId, c1],
      );
      assert.equal(sent.rows[0].n, 0);

      // Joining while inactive enters nobody; after activation, new joins enter, the stopped one stays stopped.
      const c2 = await newContact(a);
      await join(a, listId, [c2]);
      const again = await call(svc.api, 'PUT', drips(a, `/${d.id}`), {
        auth: a.auth,
        json: { activate: true },
      });
      assert.equal(body(again).data.active, true);
      const c3 = await newContact(a);
      await join(a, listId, [c3]);
      const newest = await eventually(async () => {
        const r = body(await execution(a, d.id));
        return r.data.contact.id === c3 ? r : undefined;
      });
      assert.equal(newest.pagination.totalCount, 2);
      assert.equal(body(await execution(a, d.id, '?offset=1')).data.status, 'stopped');
      assert.equal((await execution(a, d.id, `?contactId=${c2}`)).statusCode, 404);

      // activate: false deactivates too.
      const off = await call(svc.api, 'PUT', drips(a, `/${d.id}`), {
        auth: a.auth,
        json: { activate: false },
      });
      assert.equal(body(off).data.active, false);
      assert.equal(body(await execution(a, d.id)).data.status, 'stopped');
    });
  });

  describe('PUT /v1/accounts/:accountId/dripcampaigns/:dripCampaignId/migrate', () => {
    it('builds the equivalent workflow (trigger → waits and sends → end), deactivates the drip, and answers 409 the second time', async () => {
      const listId = await newList(a);
      const groups = body(await call(svc.api, 'GET', `${base(a)}/groups`, { auth: a.auth })).data;
      const d = await create(a, {
        name: 'Onboarding',
        trigger: { type: 'list', listId, delay: { hours: 2 }, groups: [{ id: groups[0].id }] },
        messages: [{ message: 'Welcome {{{firstName}}}' }, { message: 'Day two', delay: { days: 1 } }],
        activate: true,
      });
      const c1 = await newContact(a);
      await join(a, listId, [c1]);
      await eventually(async () => (await execution(a, d.id)).statusCode === 200);

      const res = await call(svc.api, 'PUT', drips(a, `/${d.id}/migrate`), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const wf = body(res).data;
      assert.equal(wf.name, 'Onboarding');
      assert.equal(wf.versions.length, 1);
      const v = wf.versions[0];
      assert.ok(v.active, 'the version is active, as the drip was');
      const nodes = v.definition.nodes.map((n: { id: string; type: { id: string }; config: object }) => [
        n.id,
        n.type.id,
        n.config,
      ]);
      assert.deepEqual(nodes, [
        ['trigger', 'trigger.list-joined', { listId }],
        ['wait-0', 'action.wait', { delay: { days: 0, hours: 2, minutes: 0 } }],
        ['send-1', 'action.send-message', { message: 'Welcome {{{firstName}}}', id: groups[0].id }],
        ['wait-2', 'action.wait', { delay: { days: 1, hours: 0, minutes: 0 } }],
        ['send-2', 'action.send-message', { message: 'Day two', id: groups[0].id }],
        ['end', 'action.end', {}],
      ]);
      assert.deepEqual(
        v.definition.edges.map((e: { source: string; target: string }) => `${e.source}>${e.target}`),
        ['trigger>wait-0', 'wait-0>send-1', 'send-1>wait-2', 'wait-2>send-2', 'send-2>end'],
      );

      const after = await get(a, d.id);
      assert.equal(after.active, false);
      assert.equal(after.workflowId, wf.id);
      assert.equal(body(await execution(a, d.id)).data.status, 'stopped');
      const fetched = await call(svc.api, 'GET', `${base(a)}/workflows/${wf.id}`, { auth: a.auth });
      assert.equal(fetched.statusCode, 200, fetched.body);

      const again = await call(svc.api, 'PUT', drips(a, `/${d.id}/migrate`), { auth: a.auth });
      assert.equal(again.statusCode, 409);
      assert.equal(body(again).error.code, 'DRIP-003');
      const reactivate = await call(svc.api, 'PUT', drips(a, `/${d.id}`), {
        auth: a.auth,
        json: { activate: true },
      });
      assert.equal(reactivate.statusCode, 409);
      assert.equal(body(reactivate).error.code, 'DRIP-003');
    });

    it('hands over the workflow the drip ran on: endpoint 17’s `versionId` names its versions', async () => {
      const listId = await newList(a);
      const d = await create(a, dripBody(listId, { activate: true }));
      const c1 = await newContact(a);
      await join(a, listId, [c1]);
      await eventually(async () => (await execution(a, d.id)).statusCode === 200);
      const wf = body(await call(svc.api, 'PUT', drips(a, `/${d.id}/migrate`), { auth: a.auth })).data;
      assert.equal(wf.id, d.id, 'the same workflow, not a copy');
      const versionId = wf.versions[0].id;
      const inVersion = await execution(a, d.id, `?versionId=${versionId}`);
      assert.equal(inVersion.statusCode, 200, inVersion.body);
      assert.equal(body(inVersion).data.contact.id, c1);
      const other = await execution(a, d.id, `?versionId=${NOT_A_VERSION}`);
      assert.equal(other.statusCode, 404);
      assert.equal(body(other).error.code, 'DRIP-002');
    });

    it('maps keyword and contact-created triggers, and an inactive drip to an inactive version', async () => {
      const k = await create(a, { ...dripBody(''), trigger: { type: 'keyword', message: 'Deals' } });
      const wk = body(await call(svc.api, 'PUT', drips(a, `/${k.id}/migrate`), { auth: a.auth })).data;
      assert.deepEqual(wk.versions[0].definition.nodes[0].config, { keyword: 'DEALS' });
      assert.equal(wk.versions[0].definition.nodes[0].type.id, 'trigger.keyword');
      assert.ok(!wk.versions[0].active);
      // No sender group named: the send nodes name none (the default group sends).
      assert.equal(wk.versions[0].definition.nodes[1].type.id, 'action.send-message');
      assert.equal(wk.versions[0].definition.nodes[1].config.id, undefined);
      const c = await create(a, { ...dripBody(''), trigger: { type: 'contact-created' } });
      const wc = body(await call(svc.api, 'PUT', drips(a, `/${c.id}/migrate`), { auth: a.auth })).data;
      assert.equal(wc.versions[0].definition.nodes[0].type.id, 'trigger.contact-created');
    });
  });
});
