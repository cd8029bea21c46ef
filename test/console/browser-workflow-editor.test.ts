/**
 * The workflow graph editor in a real browser: a new workflow from a blank graph (nodes from the
 * node-type catalog, edges, settings checked by the types' rules), saved, a rule broken and caught
 * before saving, a second version, activation, a contact enrolled and its run shown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('the web console’s workflow graph editor in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let workflowId: string;
  const api = async (method: 'GET' | 'POST', path: string, json?: unknown) => {
    const res = await call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${res.body}`);
    return body(res).data;
  };
  const addNode = async (typeId: string, id: string) => {
    await page.selectOption('select[name=node-type]', typeId);
    await page.fill('input[name=node-id]', id);
    await page.locator('button', { hasText: 'Add step' }).click();
    await page.locator(`.node-panel h3 bdi`, { hasText: id }).waitFor();
  };
  const connect = async (source: string, target: string, value?: string) => {
    await page.selectOption('select[name=edge-source]', source);
    await page.selectOption('select[name=edge-target]', target);
    if (value !== undefined) await page.selectOption('select[name=edge-value]', value);
    await page.locator('button', { hasText: 'Connect' }).click();
  };

  before(async () => {
    c = await startConsole({ simulatorDeliveryDelayMs: 0 });
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    await api('POST', '/contacts', { firstName: 'Ada', mobile: '+14155550290' });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('builds a workflow from the catalog, checks it by the node types’ rules and saves it', async () => {
    await page.click('a[href="#/workflows"]');
    await page.locator('a', { hasText: 'New workflow' }).click();
    await page.locator('h2', { hasText: 'New workflow' }).waitFor();
    // The blank graph has its trigger; it needs a way out.
    await page.locator('[data-test=problems] li').first().waitFor();

    await addNode('action.send-message', 'hello');
    // A required setting left empty is named.
    await page.locator('[data-test=problems] li', { hasText: 'Message is required' }).waitFor();
    await page.fill('textarea[name=config-message]', 'Hi {{{firstName}}}, welcome!');
    await addNode('action.end', 'done');
    await connect('start', 'hello');
    await connect('hello', 'done');
    await page.locator('[data-test=problems-none]').waitFor();
    assert.equal(await page.locator('svg.workflow-graph g.node').count(), 3);
    assert.equal(await page.locator('svg.workflow-graph path.edge').count(), 2);

    await page.fill('input[name=workflow-name]', 'Welcome \u202Eflow');
    await page.locator('button', { hasText: 'Save workflow' }).click();
    await page.locator('.flash', { hasText: 'Workflow saved.' }).waitFor();
    await page.locator('h2', { hasText: 'Edit workflow' }).waitFor();
    const [wf] = await api('GET', '/workflows');
    workflowId = wf.id;
    assert.equal(wf.name, 'Welcome \u202Eflow');
    const def = wf.versions[0].definition;
    assert.deepEqual(
      def.nodes.map((n: { id: string; type: { id: string } }) => [n.id, n.type.id]),
      [
        ['start', 'trigger.manual'],
        ['hello', 'action.send-message'],
        ['done', 'action.end'],
      ],
    );
    assert.equal(def.nodes[1].config.message, 'Hi {{{firstName}}}, welcome!');
    assert.deepEqual(
      def.edges.map((e: { source: string; target: string }) => `${e.source}>${e.target}`),
      ['start>hello', 'hello>done'],
    );
    await screenshot(page, 'workflow-editor');
    assert.deepEqual(c.problems, []);
  });

  it('catches a broken rule before saving, saves a branch as a new version, activates it and shows a run', async () => {
    await page.goto(`${c.base}/console/#/workflows/${workflowId}`);
    await page.locator('a', { hasText: 'Edit in the graph editor' }).first().click();
    await page.locator('h2', { hasText: 'Edit workflow' }).waitFor();
    // A condition between the trigger and the text: its two branches are required.
    await addNode('condition.attribute', 'vip');
    await page.fill('input[name=config-attribute]', 'tier');
    await page.fill('input[name=config-value]', 'gold');
    await page.locator('tr', { hasText: 'start' }).locator('button', { hasText: 'Remove' }).click();
    await connect('start', 'vip');
    await connect('vip', 'hello', 'true');
    await page.locator('[data-test=problems] li', { hasText: 'needs exactly 2 steps after it' }).waitFor();
    await page.fill('input[name=version-name]', 'with a branch');
    await page.locator('button', { hasText: 'Save as a new version' }).click();
    await page.locator('.flash-error', { hasText: 'breaks 1 rule' }).waitFor();
    assert.equal((await api('GET', `/workflows/${workflowId}`)).versions.length, 1);

    await connect('vip', 'done', 'false');
    await page.locator('[data-test=problems-none]').waitFor();
    await page.locator('button', { hasText: 'Save as a new version' }).click();
    await page.locator('.flash', { hasText: 'New version saved.' }).waitFor();
    const wf = await api('GET', `/workflows/${workflowId}`);
    assert.equal(wf.versions.length, 2);
    const v2 = wf.versions[1];
    assert.equal(v2.name, 'with a branch');
    assert.deepEqual(
      v2.definition.edges
        .map((e: { source: string; target: string; value: string }) => `${e.source}>${e.target}:${e.value}`)
        .sort(),
      ['hello>done:', 'start>vip:', 'vip>done:false', 'vip>hello:true'],
    );

    await page.locator('button', { hasText: 'Activate this version' }).click();
    await page.locator('.flash', { hasText: 'Version activated' }).waitFor();
    assert.ok((await api('GET', `/workflows/${workflowId}`)).versions[1].active);
    // The version picker names both, the active one marked; picking the first opens it.
    const picker = page.locator('select[name=version]');
    // The page after activation renders once its data is in (the flash is shown before it).
    await picker.locator('option', { hasText: 'with a branch (active)' }).waitFor({ state: 'attached' });
    assert.deepEqual(
      (await picker.locator('option').allTextContents()).map((t) => t.trim()),
      [wf.versions[0].name || wf.versions[0].id, 'with a branch (active)'],
    );
    await picker.selectOption(wf.versions[0].id);
    await page.waitForURL(new RegExp(`version=${wf.versions[0].id}`));
    await page.locator('select[name=version]').selectOption(v2.id);
    await page.waitForURL(new RegExp(`version=${v2.id}`));

    await page.getByRole('button', { name: 'Enroll', exact: true }).click();
    await page.locator('.flash', { hasText: 'Contact enrolled.' }).waitFor();
    await eventually(async () => {
      const runs = await api('GET', `/workflows/${workflowId}/enrollments`);
      return runs.length === 1 && runs[0].status === 'completed';
    });
    await page.reload();
    await page.locator('[data-test=runs] .badge', { hasText: 'completed' }).waitFor();
    assert.equal(await page.locator('[data-test=runs] td bdi', { hasText: 'Ada' }).count(), 1);
    await screenshot(page, 'workflow-editor-runs');

    // Keyboard: the node list selects a node, and its settings get focusable controls.
    await page.locator('button.node-button[data-node="hello"]').focus();
    await page.keyboard.press('Enter');
    await page.locator('.node-panel h3 bdi', { hasText: 'hello' }).waitFor();
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
      assert.equal(wide, false);
      await screenshot(page, 'workflow-editor-360');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
    assert.deepEqual(c.problems, []);
  });
});
