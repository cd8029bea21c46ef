/**
 * The inbox's live updates in a real browser: a text that arrives while the person is on another
 * page raises the Inbox link's unread count (polled, no reload); the open inbox lists the thread
 * with its count; a reply arriving while the thread is open appears in it; reading it clears the
 * count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('the web console’s inbox live updates in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let ours: string;
  const inbound = async (from: string, text: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: ours, text },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    const numbers = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }),
    ).data;
    ours = numbers[0].number;
    await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { firstName: 'Noor \u202Eevil', mobile: '+14155550301' },
    });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('counts unread conversations on the Inbox link live, and clears the count once read', async () => {
    const inbox = page.locator('a[data-path="/inbox"]');
    assert.equal(await inbox.getAttribute('data-unread'), null);
    await inbound('+14155550301', 'Is the shop open today?');
    // No reload: the count appears by itself.
    await page.locator('a[data-path="/inbox"][data-unread="1"]').waitFor();
    assert.equal(await inbox.getAttribute('aria-label'), 'Inbox, 1 unread conversation');
    // The link's text stays its name: the count is drawn by the style sheet.
    assert.equal(await inbox.textContent(), 'Inbox');
    await page.getByRole('link', { name: 'Inbox, 1 unread conversation' }).waitFor();
    await screenshot(page, 'inbox-unread-nav');

    await page.click('a[data-path="/inbox"]');
    const row = page.locator('a.unread', { hasText: 'Noor' });
    await row.waitFor();
    await row.click();
    await page.locator('.view', { hasText: 'Is the shop open today?' }).waitFor();
    // Opened: read, so the count goes.
    await page.locator('a[data-path="/inbox"]:not([data-unread])').waitFor();
    // A text arriving while the thread is open shows up in it.
    await inbound('+14155550301', 'Hello? Still there?');
    await page.locator('.view', { hasText: 'Hello? Still there?' }).waitFor();
    await screenshot(page, 'inbox-thread-live');
    assert.deepEqual(c.problems, []);
  });
});
