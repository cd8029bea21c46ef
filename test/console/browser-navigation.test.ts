/**
 * The console's navigation in a browser: sections (Messaging, Automation, Audience, Numbers,
 * Account) each a list labelled by its heading, the page in view marked for assistive technology,
 * followed by keyboard; on a 360 px screen a menu button opens and closes it (Escape too).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestAccount } from '../helpers.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the console’s navigation', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let page: Page;
  let a: TestAccount;

  before(async () => {
    c = await startConsole();
    page = c.page;
    a = await c.svc.newAccount();
    await page.setViewportSize({ width: 1280, height: 800 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('groups the pages in labelled sections', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.waitFor();
    const headings = await nav.locator('h2').allTextContents();
    assert.deepEqual(headings, ['Messaging', 'Automation', 'Audience', 'Numbers', 'Account']);
    for (const [section, link] of [
      ['Messaging', 'Compose'],
      ['Automation', 'Workflows'],
      ['Audience', 'Contacts'],
      ['Numbers', 'Groups'],
      ['Account', 'API credentials'],
    ]) {
      // Each section is a list named by its heading, holding its pages.
      const list = nav.getByRole('list', { name: section });
      assert.equal(
        await list.getByRole('link', { name: link, exact: true }).count(),
        1,
        `${link} in ${section}`,
      );
    }
    assert.equal(await page.locator('.menu-toggle').isVisible(), false, 'no menu button on a wide screen');
  });

  it('is followed by keyboard and marks the page in view', async () => {
    await page.focus('nav a[href="#/contacts"]');
    await page.keyboard.press('Enter');
    await page.locator('h2', { hasText: 'Contacts' }).waitFor();
    assert.equal(await page.getAttribute('nav a[href="#/contacts"]', 'aria-current'), 'page');
    assert.equal(await page.getAttribute('nav a[href="#/overview"]', 'aria-current'), null);
    // A record's page keeps its section's link current.
    await page.goto(`${c.base}/console/#/contacts/new`);
    await page.locator('input[name=mobile]').waitFor();
    assert.equal(await page.getAttribute('nav a[href="#/contacts"]', 'aria-current'), 'page');
  });

  it('on a 360 px screen is a panel a menu button opens and closes, by keyboard too', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${c.base}/console/#/overview`);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    const button = page.locator('.menu-toggle');
    const nav = page.locator('nav.nav');
    assert.equal(await nav.isVisible(), false, 'closed at first: the page comes first');
    assert.equal(await button.getAttribute('aria-expanded'), 'false');

    await button.focus();
    await page.keyboard.press('Enter');
    await nav.waitFor({ state: 'visible' });
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    const box = await nav.boundingBox();
    assert.ok(box && box.width <= 360, `the open menu fits the screen (${box?.width} px)`);
    const violations = await axeViolations(page);
    assert.deepEqual(
      violations.length ? [describeViolations('the open menu at 360 px', violations)] : [],
      [],
    );

    // Escape inside the menu closes it and gives the focus back to the button.
    await page.focus('nav a[href="#/lists"]');
    await page.keyboard.press('Escape');
    await nav.waitFor({ state: 'hidden' });
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'menu-toggle');

    // Following a link closes the menu and shows the page.
    await page.keyboard.press('Enter');
    await nav.waitFor({ state: 'visible' });
    await page.focus('nav a[href="#/lists"]');
    await page.keyboard.press('Enter');
    await page.locator('h2', { hasText: 'Lists' }).waitFor();
    await nav.waitFor({ state: 'hidden' });
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.deepEqual(c.problems, []);
  });

  it('on a 360 px screen closes the menu on Escape right after opening it, and on Back', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${c.base}/console/#/overview`);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    const button = page.locator('.menu-toggle');
    const nav = page.locator('nav.nav');
    // Opened with a click: the focus is on the button, not in the menu.
    await button.click();
    await nav.waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await nav.waitFor({ state: 'hidden' });
    assert.equal(await button.getAttribute('aria-expanded'), 'false');

    await page.goto(`${c.base}/console/#/contacts`);
    await page.locator('h2', { hasText: 'Contacts' }).waitFor();
    await button.click();
    await nav.waitFor({ state: 'visible' });
    await page.goBack();
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    await nav.waitFor({ state: 'hidden' });
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.deepEqual(c.problems, []);
  });

  it('shows the page in view afresh when its own link is followed', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${c.base}/console/#/contacts`);
    await page.locator('h2', { hasText: 'Contacts' }).waitFor();
    // Mark the page's element: a fresh render replaces it.
    await page.evaluate(() => document.querySelector('.view')?.setAttribute('data-old', ''));
    await page.click('nav a[href="#/contacts"]');
    await page.locator('.view:not([data-old]) h2', { hasText: 'Contacts' }).waitFor();
    assert.equal(await page.locator('.view[data-old]').count(), 0);
    assert.equal(await page.getAttribute('nav a[href="#/contacts"]', 'aria-current'), 'page');
    assert.deepEqual(c.problems, []);
  });
});
