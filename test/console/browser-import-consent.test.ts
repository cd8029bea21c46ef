/**
 * Consent on a contact import from the console (issue 27): a yes/no column of the file, or one
 * statement for the whole file; the contact's page shows the consent recorded (when, the import,
 * what was agreed to). Screenshots at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('consent on a contact import', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;
  const contact = async (mobile: string) =>
    body(await call(svc.api, 'GET', url(`/contacts?mobile=${encodeURIComponent(mobile)}`), { auth: a.auth }))
      .data[0];
  const pick = (name: string, csv: string) =>
    page.setInputFiles('input[name=csv]', { name, mimeType: 'text/csv', buffer: Buffer.from(csv) });

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 10 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('records a statement for the whole file and shows it on the contact', async () => {
    await page.goto(`${c.base}/console/#/contacts`);
    await pick('shop-signups.csv', 'firstName,mobile\nLena,+14155550901\nMo,+14155550902\n');
    await page.selectOption('select[name=consentMode]', 'statement');
    await page.fill('textarea[name=consentText]', 'Yes, text me offers from Kim Flowers.');
    await page.fill('input[name=consentDate]', '2026-04-12');
    await page.fill('input[name=consentMethod]', 'the paper sign-up sheet at our shop');
    await screenshot(page, 'import-consent-1280');
    await page.locator('form button', { hasText: 'Import' }).click();
    await page.locator('.flash-info', { hasText: 'Import done' }).waitFor();
    const lena = await contact('+14155550901');
    assert.equal(lena.attributes.consentText, 'Yes, text me offers from Kim Flowers.');
    assert.match(
      lena.attributes.consentSource,
      /^Contact import “shop-signups\.csv” \(.+\), by the paper sign-up sheet at our shop$/,
    );
    await page.goto(`${c.base}/console/#/contacts/${lena.id}`);
    const shown = (await page.locator('[data-test=consent]').textContent()) ?? '';
    assert.match(shown, /shop-signups\.csv/);
    assert.match(shown, /Yes, text me offers from Kim Flowers\./);
    await screenshot(page, 'import-consent-contact-1280');
  });

  it('records consent from a yes/no column, only for the rows that say yes', async () => {
    await page.goto(`${c.base}/console/#/contacts`);
    await page.reload();
    await pick('crm.csv', 'mobile,Opted in by SMS\n+14155550903,yes\n+14155550904,no\n');
    await page.selectOption('select[name=consentMode]', 'column');
    await page.fill('input[name=consentColumn]', 'Opted in by SMS');
    await page.locator('form button', { hasText: 'Import' }).click();
    await page.locator('.flash-info', { hasText: 'Import done' }).waitFor();
    assert.match((await contact('+14155550903')).attributes.consentSource, /^Contact import “crm\.csv”/);
    assert.equal((await contact('+14155550904')).attributes.consentSource, undefined);
    assert.deepEqual(c.problems, []);
  });

  it('fits a 390 px phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${c.base}/console/#/contacts`);
    await page.reload();
    await page.selectOption('select[name=consentMode]', 'statement');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
    await page.locator('fieldset.import-consent').scrollIntoViewIfNeeded();
    await screenshot(page, 'import-consent-390');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
