/**
 * The console's workflows page in a real browser: the template gallery (search, "Use this
 * template"), the new workflow's page, activation, and the list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the web console’s workflows page in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount();
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('creates a workflow from a searched template and shows it', async () => {
    await page.click('a[href="#/workflows"]');
    await page.locator('h2', { hasText: 'Workflows' }).waitFor();
    await page.locator('p.empty', { hasText: 'No workflows yet' }).waitFor();
    assert.ok((await page.locator('[data-template]').count()) >= 1);

    await page.fill('input[aria-label="Search templates"]', 'double opt');
    await page.locator('button', { hasText: 'Search' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-template]').length === 1);
    const card = page.locator('[data-template="keyword-double-opt-in"]');
    await card.locator('input[name=name]').fill('JOIN <b>list</b>');
    await card.locator('button', { hasText: 'Use this template' }).click();

    await page.locator('.flash-info', { hasText: 'created from the template' }).waitFor();
    // The name is shown as text, not markup.
    await page.locator('h2', { hasText: 'JOIN <b>list</b>' }).waitFor();
    assert.equal(await page.locator('h2 b').count(), 0);
    assert.ok((await page.locator('td', { hasText: 'ask-confirmation' }).count()) > 0);
    assert.ok((await page.locator('td', { hasText: 'no (time ran out)' }).count()) > 0);

    const id = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const wf = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/workflows/${id}`, { auth: a.auth }),
    ).data;
    assert.equal(wf.name, 'JOIN <b>list</b>');
    assert.equal(wf.versions[0].active, undefined, 'an inactive version has no `active` (never null)');

    await page.locator('button', { hasText: 'Activate' }).click();
    await page.locator('.flash-info', { hasText: 'Version activated' }).waitFor();
    await page.locator('button', { hasText: 'Deactivate' }).waitFor();
    const after = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/workflows/${id}`, { auth: a.auth }),
    ).data;
    assert.ok(after.versions[0].active);

    await page.click('a[href="#/workflows"]');
    const row = page.locator('tr', { hasText: 'JOIN <b>list</b>' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /When a contact texts a keyword: JOIN.*active/);
    assert.equal(await page.locator('.flash-error').count(), 0);
    assert.deepEqual(c.problems, []);
  });
});
