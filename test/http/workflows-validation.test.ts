import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import {
  base,
  expectError,
  NOT_THERE,
  send,
  startWorkflowService,
  workflowHelpers,
} from './workflows-support.ts';

describe('workflow definitions and enrollments', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const { create, createSimple, enroll, newContact } = workflowHelpers(() => svc);

  before(async () => {
    ({ svc, a, b } = await startWorkflowService());
  });
  after(() => svc.close());

  describe('definition validation', () => {
    const invalid = async (definition: object, code: string, mentions: string) => {
      const res = await call(svc.api, 'POST', base(a), {
        auth: a.auth,
        json: { name: 'Bad', versions: [{ definition }] },
      });
      const message = await expectError(res, 400, code);
      assert.ok(message.includes(mentions), `"${message}" names ${mentions}`);
    };
    const trigger = { id: 'start', type: { id: 'trigger.manual' } };

    it('rejects duplicate node ids (WF-010)', async () => {
      await invalid({ nodes: [trigger, send(), { ...send() }], edges: [] }, 'WF-010', '"send"');
    });

    it('rejects an unknown node type (WF-011)', async () => {
      await invalid(
        { nodes: [trigger, { id: 'x', type: { id: 'action.fly' } }], edges: [] },
        'WF-011',
        'action.fly',
      );
      await invalid({ nodes: [trigger, { id: 'y', type: {} }], edges: [] }, 'WF-011', '"y"');
    });

    it('rejects edges to missing nodes and duplicate edge ids (WF-012)', async () => {
      await invalid(
        { nodes: [trigger, send()], edges: [{ id: 'e9', source: 'start', target: 'ghost' }] },
        'WF-012',
        'ghost',
      );
      await invalid(
        {
          nodes: [trigger, send(), { id: 'end', type: 'action.end' }],
          edges: [
            { id: 'same', source: 'start', target: 'send' },
            { id: 'same', source: 'send', target: 'end' },
          ],
        },
        'WF-012',
        '"same"',
      );
    });

    it('requires exactly one trigger node (WF-013)', async () => {
      await invalid({ nodes: [send()], edges: [] }, 'WF-013', 'has 0');
      await invalid(
        { nodes: [trigger, { id: 't2', type: { id: 'trigger.contact-created' } }], edges: [] },
        'WF-013',
        'has 2',
      );
    });

    it('requires the config of each node type (WF-014)', async () => {
      const one = (node: object) => ({
        nodes: [trigger, node],
        edges: [{ source: 'start', target: (node as { id: string }).id }],
      });
      await invalid(
        one({ id: 'm', type: { id: 'action.send-message' }, config: { message: '  ' } }),
        'WF-014',
        '"m"',
      );
      await invalid(
        one({ id: 'w', type: { id: 'action.wait' }, config: { delay: { days: 0 } } }),
        'WF-014',
        '"w"',
      );
      await invalid(
        one({ id: 'w2', type: { id: 'action.wait' }, config: { delay: { minutes: -5 } } }),
        'WF-014',
        '"w2"',
      );
      await invalid(
        {
          nodes: [{ id: 'k', type: { id: 'trigger.keyword' }, config: { keyword: 'two words' } }, send()],
          edges: [{ source: 'k', target: 'send' }],
        },
        'WF-014',
        '"k"',
      );
      await invalid(
        {
          nodes: [{ id: 'l', type: { id: 'trigger.list-joined' } }, send()],
          edges: [{ source: 'l', target: 'send' }],
        },
        'WF-014',
        'listId',
      );
      await invalid(
        one({
          id: 'c',
          type: { id: 'condition.attribute' },
          config: { attribute: 'plan', comparator: '~', value: 'x' },
        }),
        'WF-014',
        'comparator',
      );
    });

    it("enforces each node type's edge rules (WF-015)", async () => {
      // A trigger needs exactly one outgoing edge.
      await invalid({ nodes: [trigger, send()], edges: [] }, 'WF-015', '"start"');
      // condition.replied needs exactly a true and a false edge.
      await invalid(
        {
          nodes: [
            trigger,
            { id: 'r', type: { id: 'condition.replied' }, config: { delay: { hours: 1 } } },
            send(),
          ],
          edges: [
            { source: 'start', target: 'r' },
            { source: 'r', target: 'send', value: 'true' },
            { source: 'r', target: 'send', value: 'true' },
          ],
        },
        'WF-015',
        '"r"',
      );
      // action.end has no way out.
      await invalid(
        {
          nodes: [trigger, { id: 'end', type: { id: 'action.end' } }, send()],
          edges: [
            { source: 'start', target: 'end' },
            { source: 'end', target: 'send' },
          ],
        },
        'WF-015',
        '"end"',
      );
    });

    it('rejects a cycle without a wait (WF-016) but accepts one through a wait', async () => {
      const loop = (withWait: boolean) => ({
        nodes: [
          trigger,
          send(),
          withWait
            ? { id: 'pause', type: { id: 'action.wait' }, config: { delay: { days: 1 } } }
            : {
                id: 'pause',
                type: { id: 'action.update-attribute' },
                config: { attribute: 'n', value: '1' },
              },
        ],
        edges: [
          { source: 'start', target: 'send' },
          { source: 'send', target: 'pause' },
          { source: 'pause', target: 'send' },
        ],
      });
      await invalid(loop(false), 'WF-016', 'cycle');
      await create(a, { name: 'Weekly', versions: [{ definition: loop(true) }] });
    });

    it('rejects a list or group of no account of yours (WF-017)', async () => {
      await invalid(
        {
          nodes: [{ id: 'l', type: { id: 'trigger.list-joined' }, config: { listId: NOT_THERE } }, send()],
          edges: [{ source: 'l', target: 'send' }],
        },
        'WF-017',
        NOT_THERE,
      );
      await invalid(
        {
          nodes: [
            trigger,
            { id: 'g', type: { id: 'action.send-message' }, config: { message: 'x', id: NOT_THERE } },
          ],
          edges: [{ source: 'start', target: 'g' }],
        },
        'WF-017',
        NOT_THERE,
      );
    });
  });

  describe('POST and GET /v1/accounts/:accountId/workflows/:workflowId/enrollments', () => {
    it('enrolls a contact once at a time and lists the run with its status and node', async () => {
      const wf = await createSimple(a, true);
      const contactId = await newContact(a);
      const res = await enroll(a, wf.id, contactId);
      assert.equal(res.statusCode, 201, res.body);
      const run = body(res).data;
      assert.equal(run.contact.id, contactId);
      assert.equal(run.status, 'active');
      assert.equal(run.currentNode, 'start');
      assert.equal(run.trigger, 'manual');
      await expectError(await enroll(a, wf.id, contactId), 409, 'WF-007');

      const list = await call(svc.api, 'GET', `${base(a)}/${wf.id}/enrollments?status=active`, {
        auth: a.auth,
      });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        body(list).data.map((r: { id: string }) => r.id),
        [run.id],
      );
      assert.equal(body(list).pagination.totalCount, 1);
      const none = body(
        await call(svc.api, 'GET', `${base(a)}/${wf.id}/enrollments?status=completed`, { auth: a.auth }),
      );
      assert.equal(none.data.length, 0);
    });

    it('refuses without an active version (409 WF-006), for unknown and opted-out contacts', async () => {
      const idle = await createSimple(a, false);
      await expectError(await enroll(a, idle.id, await newContact(a)), 409, 'WF-006');
      const live = await createSimple(a, true);
      await expectError(await enroll(a, live.id, NOT_THERE), 404, 'CONT-002');
      const out = await newContact(a);
      await svc.db.query('UPDATE contacts SET opted_out_at = now() WHERE account_id = $1 AND id = $2', [
        a.accountId,
        out,
      ]);
      await expectError(await enroll(a, live.id, out), 400, 'CONT-010');
      await expectError(
        await call(svc.api, 'POST', `${base(a)}/${live.id}/enrollments`, { auth: a.auth, json: {} }),
        400,
        'VAL-001',
      );
      await expectError(
        await call(svc.api, 'GET', `${base(a)}/${live.id}/enrollments?status=sleeping`, { auth: a.auth }),
        400,
        'VAL-001',
      );
    });

    it("answers 404 for another account's workflow or contact and 401 without a token", async () => {
      const theirs = await createSimple(b, true);
      const theirContact = await newContact(b);
      await expectError(await enroll(a, theirs.id, await newContact(a)), 404, 'WF-001');
      await expectError(
        await call(svc.api, 'GET', `${base(a)}/${theirs.id}/enrollments`, { auth: a.auth }),
        404,
        'WF-001',
      );
      const mine = await createSimple(a, true);
      await expectError(await enroll(a, mine.id, theirContact), 404, 'CONT-002');
      await expectError(await call(svc.api, 'GET', `${base(a)}/${mine.id}/enrollments`), 401, 'AUTH-001');
      await expectError(
        await call(svc.api, 'POST', `${base(a)}/${mine.id}/enrollments`, {
          json: { contactId: theirContact },
        }),
        401,
        'AUTH-001',
      );
    });
  });
});
