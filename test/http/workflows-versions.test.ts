import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import {
  base,
  expectError,
  send,
  simple,
  startWorkflowService,
  workflowHelpers,
} from './workflows-support.ts';

describe('workflow versions and edges', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const { create, createSimple, enroll, newContact } = workflowHelpers(() => svc);

  before(async () => {
    ({ svc, a, b } = await startWorkflowService());
  });
  after(() => svc.close());

  describe('PUT /v1/accounts/:accountId/workflows/:workflowId', () => {
    it('renames, edits a version by id, adds a new one and makes it THE active version', async () => {
      const wf = await createSimple(a, true);
      const v1 = wf.versions[0];
      const changed = simple();
      changed.nodes[1] = send('Changed {{{firstName}}}');
      const res = await call(svc.api, 'PUT', `${base(a)}/${wf.id}`, {
        auth: a.auth,
        json: {
          name: 'Renamed',
          versions: [
            { id: v1.id, name: 'v1 edited', definition: changed },
            { name: 'v2', definition: simple(), active: new Date().toISOString() },
          ],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const out = body(res).data;
      assert.equal(out.name, 'Renamed');
      assert.equal(out.versions.length, 2);
      const [e1, e2] = out.versions;
      assert.equal(e1.id, v1.id);
      assert.equal(e1.name, 'v1 edited');
      assert.equal(e1.definition.nodes[1].config.message, 'Changed {{{firstName}}}');
      assert.equal(e1.active, undefined, 'the old active version is no longer active');
      assert.ok(e1.lastActive);
      assert.equal(e2.name, 'v2');
      assert.ok(e2.active);
      assert.equal(out.versions.filter((v: { active: string | null }) => v.active).length, 1);
    });

    it('deactivates with active: null; versions not named stay as they were', async () => {
      const wf = await createSimple(a, true);
      const added = body(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}`, {
          auth: a.auth,
          json: { versions: [{ name: 'draft', definition: simple() }] },
        }),
      ).data;
      assert.equal(added.versions.length, 2);
      const res = await call(svc.api, 'PUT', `${base(a)}/${wf.id}`, {
        auth: a.auth,
        json: { versions: [{ id: wf.versions[0].id, active: null }] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const out = body(res).data;
      assert.equal(out.versions.length, 2);
      assert.ok(out.versions.every((v: { active?: string }) => !('active' in v)));
      assert.equal(out.versions[1].name, 'draft');
    });

    it('keeps a read-only version: changing its definition is 409 WF-004, resending it unchanged is fine', async () => {
      const wf = await createSimple(a, true);
      const contactId = await newContact(a);
      assert.equal((await enroll(a, wf.id, contactId)).statusCode, 201);
      const now = body(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth })).data;
      assert.equal(now.versions[0].readonly, true);

      const changed = simple();
      changed.nodes[1] = send('Other text');
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}`, {
          auth: a.auth,
          json: { versions: [{ id: wf.versions[0].id, definition: changed }] },
        }),
        409,
        'WF-004',
      );
      const same = await call(svc.api, 'PUT', `${base(a)}/${wf.id}`, {
        auth: a.auth,
        json: { versions: [{ id: wf.versions[0].id, name: 'renamed ok', definition: simple() }] },
      });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal(body(same).data.versions[0].name, 'renamed ok');
    });

    it('answers 404 WF-003 for a version of another workflow and 400 for an invalid definition', async () => {
      const one = await createSimple(a);
      const two = await createSimple(a);
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${one.id}`, {
          auth: a.auth,
          json: { versions: [{ id: two.versions[0].id, name: 'x' }] },
        }),
        404,
        'WF-003',
      );
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${one.id}`, {
          auth: a.auth,
          json: { versions: [{ id: one.versions[0].id, definition: { nodes: [], edges: [] } }] },
        }),
        400,
        'WF-013',
      );
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${one.id}`, { auth: a.auth, json: { name: '' } }),
        400,
        'VAL-001',
      );
      // Nothing of the failed requests was written.
      const after = body(await call(svc.api, 'GET', `${base(a)}/${one.id}`, { auth: a.auth })).data;
      assert.deepEqual(after.versions, one.versions);
    });

    it("answers 404 for another account's workflow and 401 without a token", async () => {
      const theirs = await createSimple(b);
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${theirs.id}`, { auth: a.auth, json: { name: 'Mine' } }),
        404,
        'WF-001',
      );
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${theirs.id}`, { json: { name: 'Mine' } }),
        401,
        'AUTH-001',
      );
      assert.equal(
        body(await call(svc.api, 'GET', `${base(b)}/${theirs.id}`, { auth: b.auth })).data.name,
        theirs.name,
      );
    });
  });

  describe('PUT /v1/accounts/:accountId/workflows/:workflowId/edges/:edgeId', () => {
    const branching = () => ({
      nodes: [
        { id: 'start', type: { id: 'trigger.manual' } },
        send(),
        { id: 'other', type: { id: 'action.send-message' }, config: { message: 'Other' } },
        { id: 'end', type: { id: 'action.end' } },
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'send' },
        { id: 'e2', source: 'send', target: 'end' },
        { id: 'e3', source: 'other', target: 'end' },
      ],
    });

    it('edits the edge in the editable version and answers the Edge itself, not enveloped', async () => {
      const wf = await create(a, { name: 'Edges', versions: [{ definition: branching() }] });
      const res = await call(svc.api, 'PUT', `${base(a)}/${wf.id}/edges/e1`, {
        auth: a.auth,
        json: { success: true, data: { id: 'e1', source: 'start', target: 'other', value: '' } },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res), {
        id: 'e1',
        type: 'standard',
        source: 'start',
        target: 'other',
        value: '',
      });
      const stored = body(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth })).data;
      assert.equal(
        stored.versions[0].definition.edges.find((e: { id: string }) => e.id === 'e1').target,
        'other',
      );
    });

    it('edits the newest non-read-only version, 409 WF-005 when every version has run', async () => {
      const wf = await createSimple(a, true);
      assert.equal((await enroll(a, wf.id, await newContact(a))).statusCode, 201);
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}/edges/e1`, {
          auth: a.auth,
          json: { data: { target: 'end' } },
        }),
        409,
        'WF-005',
      );
      const updated = body(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}`, {
          auth: a.auth,
          json: { versions: [{ name: 'v2', definition: branching() }] },
        }),
      ).data;
      const res = await call(svc.api, 'PUT', `${base(a)}/${wf.id}/edges/e3`, {
        auth: a.auth,
        json: { success: true, data: { source: 'other', target: 'send' } },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).target, 'send');
      const stored = body(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth })).data;
      assert.deepEqual(
        stored.versions[0].definition,
        updated.versions[0].definition,
        'the read-only version is untouched',
      );
      assert.equal(
        stored.versions[1].definition.edges.find((e: { id: string }) => e.id === 'e3').target,
        'send',
      );
    });

    it('answers 404 WF-002 for an unknown edge and 400 for an edge that breaks the definition, in the envelope', async () => {
      const wf = await create(a, { name: 'Edges 2', versions: [{ definition: branching() }] });
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}/edges/nope`, {
          auth: a.auth,
          json: { data: { target: 'end' } },
        }),
        404,
        'WF-002',
      );
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}/edges/e1`, {
          auth: a.auth,
          json: { data: { target: 'ghost' } },
        }),
        400,
        'WF-012',
      );
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}/edges/e1`, {
          auth: a.auth,
          json: { data: { id: 'e2' } },
        }),
        400,
        'VAL-001',
      );
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${wf.id}/edges/e1`, { auth: a.auth, json: {} }),
        400,
        'VAL-001',
      );
    });

    it("answers 404 for another account's workflow and 401 without a token", async () => {
      const theirs = await create(b, { name: 'Theirs', versions: [{ definition: branching() }] });
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${theirs.id}/edges/e1`, {
          auth: a.auth,
          json: { data: { target: 'other' } },
        }),
        404,
        'WF-001',
      );
      await expectError(
        await call(svc.api, 'PUT', `${base(a)}/${theirs.id}/edges/e1`, {
          json: { data: { target: 'other' } },
        }),
        401,
        'AUTH-001',
      );
    });
  });
});
