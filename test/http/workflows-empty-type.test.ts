import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { base, expectError, simple, startWorkflowService, workflowHelpers } from './workflows-support.ts';

type Node = { id: string; type: { id: string }; config: Record<string, unknown> };
type NodeIn = { id: string; type?: { id?: string }; config?: object };

/** The interface's request shape: every node's `type` is empty. */
const emptyTypes = (def: { nodes: NodeIn[]; edges: object[] }): { nodes: NodeIn[]; edges: object[] } => ({
  nodes: def.nodes.map((n) => ({ id: n.id, type: {}, ...(n.config ? { config: n.config } : {}) })),
  edges: def.edges,
});

const typeIds = (def: { nodes: Node[] }) => Object.fromEntries(def.nodes.map((n) => [n.id, n.type.id]));

describe('PUT /v1/accounts/:accountId/workflows/:workflowId with the published request shape (type {})', () => {
  let svc: TestService;
  let a: TestAccount;
  const { create, createSimple, enroll, newContact } = workflowHelpers(() => svc);
  const put = (workflowId: string, json: object) =>
    call(svc.api, 'PUT', `${base(a)}/${workflowId}`, { auth: a.auth, json });

  before(async () => {
    ({ svc, a } = await startWorkflowService());
  });
  after(() => svc.close());

  it('keeps the type of a node that exists in the edited version when its type is {}', async () => {
    const wf = await createSimple(a);
    const v = wf.versions[0];
    const def = emptyTypes(simple());
    def.nodes[1] = { id: 'send', type: {}, config: { message: 'Edited {{{firstName}}}' } };
    const res = await put(wf.id, { versions: [{ id: v.id, definition: def }] });
    assert.equal(res.statusCode, 200, res.body);
    const out = body(res).data.versions[0].definition;
    assert.deepEqual(typeIds(out), {
      start: 'trigger.manual',
      send: 'action.send-message',
      end: 'action.end',
    });
    assert.equal(out.nodes[1].config.message, 'Edited {{{firstName}}}');
    assert.equal(out.nodes[1].type.name, 'Send message', 'answered with the full Node type');
  });

  it('treats an absent type like {} and accepts the GET answer sent back as it is', async () => {
    const wf = await createSimple(a);
    const v = wf.versions[0];
    const bare = (simple().nodes as NodeIn[]).map(({ id, config }) => (config ? { id, config } : { id }));
    const res = await put(wf.id, {
      versions: [{ id: v.id, definition: { nodes: bare, edges: simple().edges } }],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(typeIds(body(res).data.versions[0].definition), typeIds(v.definition));
    // A client that round-trips the Workflow it read (full Node types, edge types) changes nothing.
    const read = body(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth })).data;
    const again = await put(wf.id, { versions: [{ id: v.id, definition: read.versions[0].definition }] });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(body(again).data.versions[0].definition, read.versions[0].definition);
  });

  it('answers 400 WF-011 naming a new node whose type is {}, and changes nothing', async () => {
    const wf = await createSimple(a);
    const v = wf.versions[0];
    const def = emptyTypes(simple());
    def.nodes.splice(2, 0, { id: 'pause', type: {}, config: { delay: { hours: 1 } } });
    def.edges = [
      { id: 'e1', source: 'start', target: 'send' },
      { id: 'e2', source: 'send', target: 'pause' },
      { id: 'e3', source: 'pause', target: 'end' },
    ];
    const message = await expectError(
      await put(wf.id, { versions: [{ id: v.id, definition: def }] }),
      400,
      'WF-011',
    );
    assert.match(message, /"pause"/);
    assert.match(message, /new node/);
    assert.match(message, /`type\.id`/);
    assert.ok(!message.includes('"send"'), message);
    const now = body(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth })).data;
    assert.deepEqual(now.versions, wf.versions);
  });

  it('takes a new node’s type from type.id beside nodes sent with {}', async () => {
    const wf = await createSimple(a);
    const v = wf.versions[0];
    const def = emptyTypes(simple());
    def.nodes.splice(2, 0, { id: 'pause', type: { id: 'action.wait' }, config: { delay: { hours: 1 } } });
    def.edges = [
      { id: 'e1', source: 'start', target: 'send' },
      { id: 'e2', source: 'send', target: 'pause' },
      { id: 'e3', source: 'pause', target: 'end' },
    ];
    const res = await put(wf.id, { versions: [{ id: v.id, definition: def }] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(typeIds(body(res).data.versions[0].definition), {
      start: 'trigger.manual',
      send: 'action.send-message',
      pause: 'action.wait',
      end: 'action.end',
    });
  });

  it('changes a kept node’s type when type.id names another one', async () => {
    const wf = await createSimple(a);
    const v = wf.versions[0];
    const def = emptyTypes(simple());
    def.nodes[1] = { id: 'send', type: { id: 'action.wait' }, config: { delay: { minutes: 30 } } };
    const res = await put(wf.id, { versions: [{ id: v.id, definition: def }] });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(typeIds(body(res).data.versions[0].definition).send, 'action.wait');
  });

  it("gives a new version's {} nodes the types of the current version: the active one, else the newest", async () => {
    // v1 (active): "step" sends a message; v2 (newest, inactive): "step" waits.
    const wf = await create(a, {
      name: 'Two versions',
      versions: [
        {
          name: 'v1',
          activate: true,
          definition: {
            nodes: [
              { id: 'start', type: { id: 'trigger.manual' } },
              { id: 'step', type: { id: 'action.send-message' }, config: { message: 'Hello' } },
            ],
            edges: [{ id: 'e1', source: 'start', target: 'step' }],
          },
        },
        {
          name: 'v2',
          definition: {
            nodes: [
              { id: 'start', type: { id: 'trigger.contact-created' } },
              { id: 'step', type: { id: 'action.wait' }, config: { delay: { days: 1 } } },
            ],
            edges: [{ id: 'e1', source: 'start', target: 'step' }],
          },
        },
      ],
    });
    const v3 = {
      name: 'v3',
      definition: {
        nodes: [
          { id: 'start', type: {} },
          { id: 'step', type: {}, config: { message: 'Hello again' } },
        ],
        edges: [{ id: 'e1', source: 'start', target: 'step' }],
      },
    };
    const res = await put(wf.id, { versions: [v3] });
    assert.equal(res.statusCode, 200, res.body);
    const added = body(res).data.versions[2];
    assert.deepEqual(typeIds(added.definition), { start: 'trigger.manual', step: 'action.send-message' });

    // Without an active version the newest (now v3) is the current one.
    const off = await put(wf.id, { versions: [{ id: wf.versions[0].id, active: null }] });
    assert.equal(off.statusCode, 200, off.body);
    const v4 = {
      name: 'v4',
      definition: { ...v3.definition, nodes: [{ id: 'start', type: {} }, v3.definition.nodes[1]] },
    };
    const res4 = await put(wf.id, { versions: [v4] });
    assert.equal(res4.statusCode, 200, res4.body);
    assert.deepEqual(typeIds(body(res4).data.versions[3].definition), {
      start: 'trigger.manual',
      step: 'action.send-message',
    });
    // A node of a new version that is in no current version: 400 naming it and the current version.
    const v5 = {
      definition: {
        nodes: [
          { id: 'start', type: {} },
          { id: 'fresh', type: {} },
        ],
        edges: [{ source: 'start', target: 'fresh' }],
      },
    };
    const message = await expectError(await put(wf.id, { versions: [v5] }), 400, 'WF-011');
    assert.match(message, /"fresh"/);
    assert.match(message, /current version/);
    assert.match(message, /`type\.id`/);
  });

  it('answers 400 WF-011 for a {} node of a new version when the workflow has no version yet', async () => {
    const wf = await create(a, { name: 'Empty' });
    assert.equal(wf.versions.length, 0);
    const def = emptyTypes(simple());
    const message = await expectError(await put(wf.id, { versions: [{ definition: def }] }), 400, 'WF-011');
    assert.match(message, /"start"/);
    assert.match(message, /`type\.id`/);
  });

  it('lets a read-only version be sent back with {} types (same definition: no 409)', async () => {
    const wf = await createSimple(a, true);
    assert.equal((await enroll(a, wf.id, await newContact(a))).statusCode, 201);
    const v = wf.versions[0];
    const same = await put(wf.id, {
      versions: [{ id: v.id, name: 'renamed', definition: emptyTypes(simple()) }],
    });
    assert.equal(same.statusCode, 200, same.body);
    assert.equal(body(same).data.versions[0].readonly, true);
    assert.equal(body(same).data.versions[0].name, 'renamed');
    const changed = emptyTypes(simple());
    changed.nodes[1] = { id: 'send', type: {}, config: { message: 'Different' } };
    await expectError(await put(wf.id, { versions: [{ id: v.id, definition: changed }] }), 409, 'WF-004');
  });

  describe('POST /v1/accounts/:accountId/workflows', () => {
    it('refuses nodes with {} types (all nodes are new) with 400 WF-011 naming the first', async () => {
      const res = await call(svc.api, 'POST', base(a), {
        auth: a.auth,
        json: { name: 'New', versions: [{ definition: emptyTypes(simple()) }] },
      });
      const message = await expectError(res, 400, 'WF-011');
      assert.match(message, /"start"/);
      assert.match(message, /new node needs `type\.id`/);
    });

    it('accepts type {id} for every node', async () => {
      const wf = await create(a, { name: 'Typed', versions: [{ definition: simple() }] });
      assert.deepEqual(typeIds(wf.versions[0].definition), {
        start: 'trigger.manual',
        send: 'action.send-message',
        end: 'action.end',
      });
    });
  });
});
