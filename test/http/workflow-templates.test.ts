import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { normalizeDefinition } from '../../src/domain/workflows/definition.ts';
import { NODE_TYPES } from '../../src/domain/workflows/node-types.ts';
import { WORKFLOW_TEMPLATES } from '../../src/domain/workflows/workflow-templates.ts';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { base, expectError, NOT_THERE, startWorkflowService, workflowHelpers } from './workflows-support.ts';

type Node = { id: string; type: { id: string }; config: Record<string, unknown> };
type Edge = { id: string; type: string; source: string; target: string; value: string };
type Definition = { nodes: Node[]; edges: Edge[] };
type Template = {
  id: string;
  name: string;
  category: string;
  description: string;
  created: { at: string };
  versions: { id: string; name: string; definition: Definition; readonly: boolean; active?: string }[];
};

const ids = (items: { id: string }[]) => items.map((t) => t.id);

/** A definition as the API shows it, compared by what a request can set. */
const essence = (d: Definition) => ({
  nodes: d.nodes.map((n) => ({ id: n.id, type: n.type.id, config: n.config })),
  edges: d.edges.map((e) => ({ id: e.id, type: e.type, source: e.source, target: e.target, value: e.value })),
});

describe('workflow templates', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let catalog: Template[];
  const { enroll, newContact } = workflowHelpers(() => svc);
  const templates = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/workflowtemplates${rest}`;
  const list = async (qs: string) => {
    const res = await call(svc.api, 'GET', templates(a, `?${qs}`), { auth: a.auth });
    assert.equal(res.statusCode, 200, res.body);
    return body(res);
  };

  before(async () => {
    ({ svc, a, b } = await startWorkflowService());
    catalog = (await list('limit=100')).data;
  });
  after(() => svc.close());

  describe('GET /v1/accounts/:accountId/workflowtemplates', () => {
    it('lists the whole catalog in the Workflow shape, sorted by name', async () => {
      const { data, pagination } = await list('limit=100');
      assert.equal(data.length, WORKFLOW_TEMPLATES.length);
      assert.ok(data.length >= 12);
      assert.deepEqual(pagination, { limit: 100, offset: 0, hasNext: false, totalCount: data.length });
      const names = data.map((t: Template) => t.name);
      assert.deepEqual(
        names,
        [...names].sort((x, y) => x.localeCompare(y)),
      );
      for (const id of [
        'welcome-series',
        'appointment-reminder',
        'keyword-double-opt-in',
        're-engagement',
        'birthday-greeting',
        'review-request',
        'abandoned-cart',
        'event-rsvp',
        'payment-reminder',
        'win-back',
        'nps-survey',
      ]) {
        assert.ok(ids(data).includes(id), id);
      }
      const byType = new Map(NODE_TYPES.map((t) => [t.id, t]));
      for (const t of data as Template[]) {
        assert.ok(t.name && t.category && t.description && t.created.at, t.id);
        assert.equal(t.versions.length, 1, t.id);
        const [v] = t.versions;
        assert.equal(v.readonly, false);
        assert.equal(v.active, undefined, 'an inactive version has no `active` (never null)');
        // Each node's type is the full Node type of the catalog, as in a workflow response.
        for (const n of v.definition.nodes)
          assert.deepEqual(n.type, byType.get(n.type.id), `${t.id}/${n.id}`);
        assert.equal(v.definition.nodes.filter((n) => n.type.id.startsWith('trigger.')).length, 1, t.id);
      }
      const optIn = data.find((t: Template) => t.id === 'keyword-double-opt-in');
      const trigger = optIn.versions[0].definition.nodes.find((n: Node) => n.type.id === 'trigger.keyword');
      assert.equal(trigger.config.keyword, 'JOIN');
      const timeout = optIn.versions[0].definition.edges.find((e: Edge) => e.value === 'false');
      assert.equal(timeout.type, 'timeout', 'the condition.replied false edge is the timeout edge');
    });

    it('searches with q (name, description, category), name and category; sorts and pages', async () => {
      assert.deepEqual(ids((await list('q=APPOINT')).data), ['appointment-reminder']);
      assert.deepEqual(ids((await list('q=double%20opt')).data), ['keyword-double-opt-in']);
      // q also reads descriptions: "invoice" appears only in the payment reminder's.
      assert.deepEqual(ids((await list('q=invoice')).data), ['payment-reminder']);
      const feedback = (await list('category=FEEDBACK&limit=100')).data;
      assert.deepEqual(ids(feedback).sort(), ['nps-survey', 'review-request']);
      assert.ok(feedback.every((t: Template) => t.category === 'feedback'));
      assert.equal((await list('category=feed')).data.length, 0, 'category is an exact match');
      const named = (await list('name=re&limit=100')).data;
      assert.ok(named.length >= 3);
      assert.ok(named.every((t: Template) => t.name.toLowerCase().includes('re')));
      assert.deepEqual(ids((await list('q=marketing&name=birthday')).data), ['birthday-greeting']);

      const desc = (await list('sort=-name&limit=100')).data.map((t: Template) => t.name);
      assert.deepEqual(
        desc,
        [...desc].sort((x, y) => y.localeCompare(x)),
      );
      const created = (await list('sort=created&limit=100')).data;
      assert.equal(created[0].id, 'welcome-series');
      const ats = created.map((t: Template) => t.created.at);
      assert.deepEqual(ats, [...ats].sort());
      const page = await list('sort=created&offset=2&limit=3');
      assert.deepEqual(ids(page.data), ids(created.slice(2, 5)));
      assert.deepEqual(page.pagination, { limit: 3, offset: 2, hasNext: true, totalCount: created.length });
      const last = await list(`sort=created&offset=${created.length - 1}&limit=5`);
      assert.deepEqual(ids(last.data), [created.at(-1).id]);
      assert.equal(last.pagination.hasNext, false);
      const beyond = await list('offset=1000');
      assert.deepEqual(beyond.data, []);
      assert.equal(beyond.pagination.totalCount, created.length);
      const none = await list('q=zzzz-nothing');
      assert.deepEqual(none.data, []);
      assert.equal(none.pagination.totalCount, 0);
      // Hostile search text is just text: no match, no error.
      for (const q of ["'; drop table workflows; --", '%', '_', '.*', '😀'])
        assert.equal((await list(`q=${encodeURIComponent(q)}`)).data.length, 0, q);
    });

    it('rejects limit 0 or 101, a negative offset, an unknown sort and an overlong q with 400 VAL-001', async () => {
      for (const qs of [
        'limit=0',
        'limit=101',
        'offset=-1',
        'limit=abc',
        'sort=price',
        `q=${'x'.repeat(201)}`,
      ]) {
        const res = await call(svc.api, 'GET', templates(a, `?${qs}`), { auth: a.auth });
        await expectError(res, 400, 'VAL-001');
      }
    });

    it("answers 401 without a token, 403 for another account's path and without workflows:read", async () => {
      assert.equal((await call(svc.api, 'GET', templates(a))).statusCode, 401);
      assert.equal(
        (await call(svc.api, 'GET', templates(a), { auth: { authorization: 'Bearer nope' } })).statusCode,
        401,
      );
      assert.equal((await call(svc.api, 'GET', templates(b), { auth: a.auth })).statusCode, 403);
      const other = await svc.newAccount({ scopes: ['contacts:read'] });
      await expectError(await call(svc.api, 'GET', templates(other), { auth: other.auth }), 403, 'AUTH-004');
      await expectError(
        await call(svc.api, 'GET', templates(other, '/welcome-series'), { auth: other.auth }),
        403,
        'AUTH-004',
      );
    });
  });

  describe('GET /v1/accounts/:accountId/workflowtemplates/:templateId', () => {
    it('answers one template as the list shows it', async () => {
      const res = await call(svc.api, 'GET', templates(a, '/appointment-reminder'), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        body(res).data,
        catalog.find((t) => t.id === 'appointment-reminder'),
      );
    });

    it('answers 404 WF-018 for an unknown or hostile id, 401 without a token', async () => {
      for (const id of ['nope', 'WELCOME-SERIES', "'; drop table x; --", 'x'.repeat(300), '😀', NOT_THERE]) {
        const res = await call(svc.api, 'GET', templates(a, `/${encodeURIComponent(id)}`), { auth: a.auth });
        await expectError(res, 404, 'WF-018');
      }
      assert.equal((await call(svc.api, 'GET', templates(a, '/welcome-series'))).statusCode, 401);
      assert.equal(
        (await call(svc.api, 'GET', templates(b, '/welcome-series'), { auth: a.auth })).statusCode,
        403,
      );
    });
  });

  describe('every catalog template is a valid workflow', () => {
    it('passes the definition validator as written in the catalog', () => {
      for (const t of WORKFLOW_TEMPLATES) {
        assert.doesNotThrow(() => normalizeDefinition(t.definition, null), t.id);
      }
    });

    it('is accepted by POST …/workflows when sent as an ordinary definition, and answered unchanged', async () => {
      assert.equal(catalog.length, WORKFLOW_TEMPLATES.length);
      for (const t of catalog) {
        const def = t.versions[0].definition;
        const res = await call(svc.api, 'POST', base(a), {
          auth: a.auth,
          json: {
            name: `Copy of ${t.name}`,
            versions: [
              {
                definition: {
                  nodes: def.nodes.map((n) => ({ id: n.id, type: { id: n.type.id }, config: n.config })),
                  edges: def.edges.map((e) => ({
                    id: e.id,
                    source: e.source,
                    target: e.target,
                    value: e.value,
                  })),
                },
                activate: true,
              },
            ],
          },
        });
        assert.equal(res.statusCode, 201, `${t.id}: ${res.body}`);
        assert.deepEqual(essence(body(res).data.versions[0].definition), essence(def), t.id);
      }
    });
  });

  describe('POST /v1/accounts/:accountId/workflows with templateId', () => {
    it("creates an editable workflow whose one inactive version holds the template's nodes and edges", async () => {
      for (const t of catalog) {
        const res = await call(svc.api, 'POST', base(a), { auth: a.auth, json: { templateId: t.id } });
        assert.equal(res.statusCode, 201, `${t.id}: ${res.body}`);
        const wf = body(res).data;
        assert.equal(wf.name, t.name, 'the name defaults to the template name');
        assert.notEqual(wf.id, t.id);
        assert.equal(wf.versions.length, 1);
        const [v] = wf.versions;
        assert.equal(v.name, 'v1');
        assert.equal(v.active, undefined, 'an inactive version has no `active` (never null)');
        assert.equal(v.readonly, false);
        assert.deepEqual(essence(v.definition), essence(t.versions[0].definition), t.id);
        const again = body(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth })).data;
        assert.deepEqual(again, wf);
      }
    });

    it('takes the given name; the new workflow can be edited, activated and enrolled into', async () => {
      const res = await call(svc.api, 'POST', base(a), {
        auth: a.auth,
        json: { templateId: 'nps-survey', name: 'Quarterly NPS' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const wf = body(res).data;
      assert.equal(wf.name, 'Quarterly NPS');
      const v = wf.versions[0];
      const nodes = v.definition.nodes.map((n: Node) =>
        n.id === 'ask' ? { id: n.id, type: {}, config: { message: 'Rate us 0-10, {{{firstName}}}?' } } : n,
      );
      const edit = await call(svc.api, 'PUT', `${base(a)}/${wf.id}`, {
        auth: a.auth,
        json: { versions: [{ id: v.id, definition: { nodes, edges: v.definition.edges }, activate: true }] },
      });
      assert.equal(edit.statusCode, 200, edit.body);
      const edited = body(edit).data.versions[0];
      assert.ok(edited.active);
      const ask = edited.definition.nodes.find((n: Node) => n.id === 'ask');
      assert.equal(ask.type.id, 'action.send-message');
      assert.equal(ask.config.message, 'Rate us 0-10, {{{firstName}}}?');
      const enrolled = await enroll(a, wf.id, await newContact(a));
      assert.equal(enrolled.statusCode, 201, enrolled.body);
      // The template itself is untouched by edits of a workflow made from it.
      const tpl = body(await call(svc.api, 'GET', templates(a, '/nps-survey'), { auth: a.auth })).data;
      assert.notEqual(
        tpl.versions[0].definition.nodes.find((n: Node) => n.id === 'ask').config.message,
        'Rate us 0-10, {{{firstName}}}?',
      );
    });

    it('refuses templateId with versions (400 WF-019), an unknown template (404 WF-018), bad values (400)', async () => {
      const count = async () =>
        body(await call(svc.api, 'GET', `${base(a)}?limit=1`, { auth: a.auth })).pagination.totalCount;
      const before = await count();
      const both = await call(svc.api, 'POST', base(a), {
        auth: a.auth,
        json: {
          templateId: 'welcome-series',
          versions: [
            {
              definition: {
                nodes: [
                  { id: 'start', type: { id: 'trigger.manual' } },
                  { id: 'end', type: { id: 'action.end' } },
                ],
                edges: [{ source: 'start', target: 'end' }],
              },
            },
          ],
        },
      });
      const message = await expectError(both, 400, 'WF-019');
      assert.match(message, /templateId.*versions/);
      const unknown = await call(svc.api, 'POST', base(a), { auth: a.auth, json: { templateId: 'no-such' } });
      assert.match(await expectError(unknown, 404, 'WF-018'), /no-such/);
      for (const json of [
        {},
        { templateId: '' },
        { templateId: 'x'.repeat(101) },
        { templateId: { id: 'welcome-series' } },
        { templateId: 'welcome-series', name: '' },
        { templateId: 'welcome-series', name: 'x'.repeat(201) },
      ]) {
        await expectError(await call(svc.api, 'POST', base(a), { auth: a.auth, json }), 400, 'VAL-001');
      }
      for (const templateId of ["'; drop table workflows; --", '../welcome-series', '😀']) {
        const res = await call(svc.api, 'POST', base(a), { auth: a.auth, json: { templateId } });
        await expectError(res, 404, 'WF-018');
      }
      // None of the refused requests left a workflow behind.
      assert.equal(await count(), before);
    });

    it('answers 401 without a token and 403 without workflows:write or for another account', async () => {
      const json = { templateId: 'welcome-series' };
      assert.equal((await call(svc.api, 'POST', base(a), { json })).statusCode, 401);
      assert.equal((await call(svc.api, 'POST', base(b), { auth: a.auth, json })).statusCode, 403);
      const reader = await svc.newAccount({ scopes: ['workflows:read'] });
      await expectError(
        await call(svc.api, 'POST', base(reader), { auth: reader.auth, json }),
        403,
        'AUTH-004',
      );
      // It can still read the catalog.
      assert.equal((await call(svc.api, 'GET', templates(reader), { auth: reader.auth })).statusCode, 200);
    });

    it("keeps a workflow made from a template to its account: another account's is a 404", async () => {
      const res = await call(svc.api, 'POST', base(a), { auth: a.auth, json: { templateId: 'win-back' } });
      const wf = body(res).data;
      await expectError(await call(svc.api, 'GET', `${base(b)}/${wf.id}`, { auth: b.auth }), 404, 'WF-001');
      await expectError(
        await call(svc.api, 'PUT', `${base(b)}/${wf.id}`, { auth: b.auth, json: { name: 'Mine now' } }),
        404,
        'WF-001',
      );
      const listed = body(await call(svc.api, 'GET', `${base(b)}?limit=100`, { auth: b.auth })).data;
      assert.ok(!ids(listed).includes(wf.id));
      const still = body(await call(svc.api, 'GET', `${base(a)}/${wf.id}`, { auth: a.auth })).data;
      assert.equal(still.name, 'Win-back offer');
    });
  });
});
