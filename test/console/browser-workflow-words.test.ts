/**
 * Workflow templates and a workflow's page in plain words (issue 27): no API paths, attribute
 * jargon, "nodes" or "edges" for a person choosing or reading a workflow.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestAccount } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('workflows in plain words', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let page: Page;
  let a: TestAccount;

  before(async () => {
    c = await startConsole();
    page = c.page;
    a = await c.svc.newAccount();
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('describes the templates without API paths or attribute jargon, and a workflow as steps', async () => {
    for (const q of ['birthday', 'cart', 'invoice', 'appointment']) {
      await page.goto(`${c.base}/console/#/workflows?q=${q}`);
      const card = page.locator('.template-card').first();
      await card.waitFor();
      const text = (await card.textContent()) ?? '';
      assert.doesNotMatch(text, /POST|…\/|enrollments|attributes? |\{id\}/, `${q}: ${text}`);
    }
    await page.locator('.template-card').first().locator('button', { hasText: 'Use this template' }).click();
    await page.locator('h4', { hasText: 'What comes next' }).first().waitFor();
    const body = (await page.locator('main').textContent()) ?? '';
    assert.doesNotMatch(body, /\bEdges\b|\bNodes\b|No edges/);
    assert.deepEqual(c.problems, []);
  });

  it('describes every kind of step in the editor in plain words', async () => {
    await page.goto(`${c.base}/console/#/workflows`);
    await page.locator('a', { hasText: 'New workflow' }).click();
    await page.locator('h2', { hasText: 'New workflow' }).waitFor();
    const types = await page
      .locator('select[name=node-type] option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    assert.ok(types.length >= 8, types.join());
    const jargon = /POST|…\/|\/enrollments|\{id\}|\{url\}|`|listId|\bedges?\b|\bnode\b|\battribute\b/;
    for (const [i, typeId] of types.entries()) {
      await page.selectOption('select[name=node-type]', typeId);
      await page.fill('input[name=node-id]', `step-${i}`);
      await page.locator('button', { hasText: 'Add step' }).click();
      await page.locator('.node-panel h3 bdi', { hasText: `step-${i}` }).waitFor();
      const words = (await page.locator('.node-panel > p.muted').first().textContent()) ?? '';
      assert.doesNotMatch(words, jargon, `${typeId}: ${words}`);
      const hints = (await page.locator('.node-panel small').allTextContents()).join(' | ');
      assert.doesNotMatch(hints, jargon, `${typeId} hints: ${hints}`);
    }
    assert.match(
      (await page.locator('select[name=node-type]').textContent()) ?? '',
      /Started from the API or by hand/,
    );
    await screenshot(page, 'workflow-editor-words-1280');
    assert.deepEqual(c.problems, []);
  });
});
