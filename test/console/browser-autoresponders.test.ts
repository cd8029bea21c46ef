/**
 * The console's Autoresponders page in a real browser: create a keyword autoresponder, see it
 * answer an inbound text (stats), turn it off, edit it into an office-hours one, delete it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the web console’s Autoresponders page in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const list = async () =>
    body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/autoresponders`, { auth: a.auth })).data;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('creates a keyword autoresponder, shows its stats, turns it off, and deletes it', async () => {
    await page.click('a[href="#/autoresponders"]');
    await page.locator('h2', { hasText: 'Autoresponders' }).waitFor();
    await page.fill('input[name=name]', 'Opening hours');
    await page.fill('input[name=keywords]', 'hours, opening times');
    await page.fill('textarea[name=message]', 'We are open 9 to 5.');
    await page.locator('button', { hasText: 'Create autoresponder' }).click();
    await page.locator('.flash-info', { hasText: 'Autoresponder created.' }).waitFor();
    const [created] = await list();
    assert.deepEqual(created.trigger, { type: 'keywords', keywords: ['hours', 'opening times'] });
    assert.equal(created.active, true);

    const groups = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/groups`, { auth: a.auth }),
    ).data;
    const to = groups.find((g: { isDefault: boolean }) => g.isDefault).phoneNumbers[0].number;
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+12015550199', to, text: 'Hours?' },
    });
    assert.ok(body(res).data.autoresponse.messageId);
    await page.reload();
    const row = page.locator('tr', { hasText: 'Opening hours' });
    assert.match((await row.textContent()) ?? '', /1 triggered · 1 sent · 0 suppressed/);

    await row.locator('button', { hasText: 'Turn off' }).click();
    await page.locator('.flash-info', { hasText: '“Opening hours” is off.' }).waitFor();
    assert.equal((await list())[0].active, false);

    await page.locator('tr', { hasText: 'Opening hours' }).locator('a', { hasText: 'Opening hours' }).click();
    await page.locator('h3', { hasText: 'Edit “Opening hours”' }).waitFor();
    await page.selectOption('select[name=triggerType]', 'outsideOfficeHours');
    await page.locator('[data-test=office-hours]', { hasText: 'Choose a group' }).waitFor();
    await page.locator('button', { hasText: 'Delete' }).click();
    await page.locator('.flash-info', { hasText: 'Autoresponder deleted.' }).waitFor();
    assert.deepEqual(await list(), []);
    assert.deepEqual(c.problems, []);
  });
});
