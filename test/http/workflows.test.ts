import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import {
  base,
  expectError,
  NOT_THERE,
  simple,
  startWorkflowService,
  workflowHelpers,
} from './workflows-support.ts';

describe('workflows', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const { create, createSimple, enroll, newContact } = workflowHelpers(() => svc);

  before(async () => {
    ({ svc, a, b } = await startWorkflowService());
  });
  after(() => svc.close());

  describe('GET /v1/accounts/:accountId/workflows/nodetypes', () => {
    it('serves the catalog with the node types definitions use', async () => {
      const res = await call(svc.api, 'GET', `${base(a)}/nodetypes`, { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const ids = body(res).data.map((t: { id: string }) => t.id);
      for (const id of [
        'trigger.list-joined',
        'trigger.contact-created',
        'trigger.keyword',
        'trigger.manual',
        'action.send-message',
        'action.wait',
        'condition.replied',
        'condition.attribute',
        'action.add-to-list',
        'action.remove-from-list',
        'action.update-attribute',
        'action.end',
      ]) {
        assert.ok(ids.includes(id), id);
      }
      const replied = body(res).data.find((t: { id: string }) => t.id === 'condition.replied');
      assert.equal(replied.validation.numEdgeCondition, 'exactly');
      assert.equal(replied.validation.numEdges, 2);
      assert.deepEqual(
        replied.validation.edges.map((e: { type: string; value: { value: string } }) => [
          e.type,
          e.value.value,
        ]),
        [
          ['standard', 'true'],
          ['timeout', 'false'],
        ],
      );
    });

    it('answers 401 without a token', async () => {
      const res = await call(svc.api, 'GET', `${base(a)}/nodetypes`);
      await expectError(res, 401, 'AUTH-001');
    });
  });

  describe('POST /v1/accounts/:accountId/workflows', () => {
    it('creates a workflow with an active version; nodes carry their full type, edges their type', async () => {
      const wf = await createSimple(a, true);
      assert.match(wf.id, /^[0-9a-f-]{36}$/);
      assert.ok(wf.created.at);
      assert.equal(wf.versions.length, 1);
      const v = wf.versions[0];
      assert.equal(v.name, 'v1');
      assert.equal(v.readonly, false);
      assert.ok(v.active, 'active timestamp');
      assert.equal(v.lastActive, undefined);
      assert.deepEqual(
        v.definition.nodes.map((n: { id: string; type: { id: string } }) => [n.id, n.type.id]),
        [
          ['start', 'trigger.manual'],
          ['send', 'action.send-message'],
          ['end', 'action.end'],
        ],
      );
      assert.equal(v.definition.nodes[1].type.name, 'Send message');
      assert.equal(v.definition.nodes[1].config.message, 'Hi {{{firstName}}}');
      assert.deepEqual(v.definition.edges[0], {
        id: 'e1',
        type: 'standard',
        source: 'start',
        target: 'send',
        value: '',
      });
    });

    it('marks the false edge of condition.replied as a timeout edge and assigns missing edge ids', async () => {
      const wf = await create(a, {
        name: 'Replied',
        versions: [
          {
            definition: {
              nodes: [
                { id: 't', type: { id: 'trigger.contact-created' } },
                { id: 'r', type: { id: 'condition.replied' }, config: { delay: { hours: 1 } } },
                { id: 'yes', type: { id: 'action.end' } },
                { id: 'no', type: { id: 'action.end' } },
              ],
              edges: [
                { source: 't', target: 'r' },
                { source: 'r', target: 'yes', value: 'true' },
                { source: 'r', target: 'no', value: 'false' },
              ],
            },
          },
        ],
      });
      const edges = wf.versions[0].definition.edges;
      assert.deepEqual(
        edges.map((e: { type: string; value: string }) => [e.type, e.value]),
        [
          ['standard', ''],
          ['standard', 'true'],
          ['timeout', 'false'],
        ],
      );
      for (const e of edges) assert.ok(e.id);
    });

    it('rejects a missing name and a malformed body with 400', async () => {
      await expectError(await call(svc.api, 'POST', base(a), { auth: a.auth, json: {} }), 400, 'VAL-001');
      await expectError(
        await call(svc.api, 'POST', base(a), {
          auth: a.auth,
          json: { name: 'x', versions: [{ definition: { nodes: 'no' } }] },
        }),
        400,
        'VAL-001',
      );
    });

    it('rejects two active versions with 400 WF-008', async () => {
      const res = await call(svc.api, 'POST', base(a), {
        auth: a.auth,
        json: {
          name: 'Two',
          versions: [
            { definition: simple(), activate: true },
            { definition: simple(), activate: true },
          ],
        },
      });
      await expectError(res, 400, 'WF-008');
    });

    it('answers 401 with an invalid token and 403 for another account', async () => {
      await expectError(
        await call(svc.api, 'POST', base(a), { auth: { authorization: 'Bearer nope' }, json: { name: 'x' } }),
        401,
        'AUTH-002',
      );
      const res = await call(svc.api, 'POST', base(b), { auth: a.auth, json: { name: 'x' } });
      assert.equal(res.statusCode, 403, res.body);
    });
  });

  describe('GET /v1/accounts/:accountId/workflows', () => {
    it('pages newest first and filters by partial name', async () => {
      const first = await create(a, { name: 'Onboarding alpha' });
      const second = await create(a, { name: 'Onboarding beta' });
      const res = await call(svc.api, 'GET', `${base(a)}?name=onboarding&limit=1`, { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const page = body(res);
      assert.deepEqual(
        page.data.map((w: { id: string }) => w.id),
        [second.id],
      );
      assert.deepEqual(page.pagination, { limit: 1, offset: 0, hasNext: true, totalCount: 2 });
      const next = body(
        await call(svc.api, 'GET', `${base(a)}?name=ONBOARDING&limit=1&offset=1`, { auth: a.auth }),
      );
      assert.deepEqual(
        next.data.map((w: { id: string }) => w.id),
        [first.id],
      );
      assert.equal(next.pagination.hasNext, false);
    });

    it("never lists another account's workflows", async () => {
      const mine = await create(b, { name: 'Only for b' });
      const res = body(await call(svc.api, 'GET', `${base(a)}?limit=100`, { auth: a.auth }));
      assert.ok(!res.data.some((w: { id: string }) => w.id === mine.id));
    });

    it('rejects an out-of-range limit with 400 and no token with 401', async () => {
      await expectError(await call(svc.api, 'GET', `${base(a)}?limit=101`, { auth: a.auth }), 400, 'VAL-001');
      await expectError(await call(svc.api, 'GET', base(a)), 401, 'AUTH-001');
    });
  });

  describe('GET /v1/accounts/:accountId/workflows/:workflowId', () => {
    it('answers the workflow with its versions', async () => {
      const wf = await createSimple(a);
      const res = await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res).data, wf);
    });

    it("answers 404 WF-001 for another account's workflow, an unknown id and a non-id", async () => {
      const theirs = await createSimple(b);
      await expectError(
        await call(svc.api, 'GET', `${base(a)}/${theirs.id}`, { auth: a.auth }),
        404,
        'WF-001',
      );
      await expectError(
        await call(svc.api, 'GET', `${base(a)}/${NOT_THERE}`, { auth: a.auth }),
        404,
        'WF-001',
      );
      await expectError(await call(svc.api, 'GET', `${base(a)}/not-an-id`, { auth: a.auth }), 404, 'WF-001');
    });

    it('answers 401 without a token', async () => {
      await expectError(await call(svc.api, 'GET', `${base(a)}/${NOT_THERE}`), 401, 'AUTH-001');
    });
  });

  describe('DELETE /v1/accounts/:accountId/workflows/:workflowId', () => {
    it('deletes the workflow and stops its enrollments', async () => {
      const wf = await createSimple(a, true);
      const contactId = await newContact(a);
      assert.equal((await enroll(a, wf.id, contactId)).statusCode, 201);
      const res = await call(svc.api, 'DELETE', `${base(a)}/${wf.id}`, { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res), { success: true });
      await expectError(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth }), 404, 'WF-001');
      const { rows } = await svc.db.query(
        `SELECT count(*)::int AS n FROM workflow_runs WHERE account_id = $1 AND workflow_id = $2 AND status IN ('active', 'waiting')`,
        [a.accountId, wf.id],
      );
      assert.equal(rows[0].n, 0);
    });

    it("answers 404 for another account's workflow (which stays) and 401 without a token", async () => {
      const theirs = await createSimple(b);
      await expectError(
        await call(svc.api, 'DELETE', `${base(a)}/${theirs.id}`, { auth: a.auth }),
        404,
        'WF-001',
      );
      await expectError(await call(svc.api, 'DELETE', `${base(a)}/${theirs.id}`), 401, 'AUTH-001');
      await expectError(
        await call(svc.api, 'DELETE', `${base(a)}/not-an-id`, { auth: a.auth }),
        404,
        'WF-001',
      );
      assert.equal((await call(svc.api, 'GET', `${base(b)}/${theirs.id}`, { auth: b.auth })).statusCode, 200);
    });
  });
});
