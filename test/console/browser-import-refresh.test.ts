/**
 * Issue 27: a contact CSV import that completes refreshes the contacts page it was started from:
 * the new contacts are listed (the search and the page kept) beside the import's result, without a
 * reload, at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('a contact import refreshes the contacts page', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;

  /** Picks `csv` in the import form and starts the import (the page is not reloaded). */
  const importCsv = async (name: string, csv: string) => {
    await page.setInputFiles('input[name=csv]', {
      name,
      mimeType: 'text/csv',
      buffer: Buffer.from(`${csv}\n`),
    });
    await page.locator('form button', { hasText: 'Import' }).click();
  };
  /** The names in the contacts table (without the marks that isolate each). */
  const names = async () =>
    (await page.locator('table').first().locator('td a').allTextContents()).map((n) =>
      n.replace(/[\u2066-\u2069]/g, ''),
    );

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    await page.setViewportSize({ width: 1280, height: 800 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('lists the imported contacts and keeps the result in view when the import completes', async () => {
    await page.click('a[href="#/contacts"]');
    await page.getByText('No contacts yet.').waitFor();
    // No reload may happen: a marker on the window would be lost with one.
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 27;
    });
    await importCsv(
      'people.csv',
      [
        'firstName,lastName,mobile',
        'Grace,Hopper,+14155550761',
        'Alan,Turing,+14155550762',
        'Bad,Row,12',
      ].join('\n'),
    );
    await page.locator('label', { hasText: 'Import complete: 3 of 3 rows' }).waitFor({ timeout: 60_000 });
    // The list shows them without a reload, and the result (counts, failed row) stays.
    await page.locator('table td a', { hasText: 'Grace Hopper' }).waitFor({ timeout: 5_000 });
    assert.deepEqual((await names()).sort(), ['Alan Turing', 'Grace Hopper']);
    await page.getByText('No contacts yet.').waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 27);
    assert.match(
      (await page.locator('.result tr', { hasText: 'CONT-001' }).textContent()) ?? '',
      /^4\s*3\s*12/,
    );
    await page.locator('.flash-info', { hasText: '3 row(s), 2 created, 0 updated, 1 failed' }).waitFor();
    await screenshot(page, 'import-refresh-1280');
  });

  it('keeps the search when it refreshes, and refreshes at 390 px too', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${c.base}/console/#/contacts?q=Lovelace`);
    await page.getByText('No contact matches.').waitFor();
    await importCsv(
      'more.csv',
      ['firstName,lastName,mobile', 'Ada,Lovelace,+14155550763', 'Charles,Babbage,+14155550764'].join('\n'),
    );
    await page.locator('label', { hasText: 'Import complete: 2 of 2 rows' }).waitFor({ timeout: 60_000 });
    await page.locator('table td a', { hasText: 'Ada Lovelace' }).waitFor({ timeout: 5_000 });
    // Still the search's matches: Babbage, imported too, is not among them.
    assert.deepEqual(await names(), ['Ada Lovelace']);
    assert.equal(await page.locator('input[name=q]').inputValue(), 'Lovelace');
    const all = body(await call(svc.api, 'GET', url('/contacts'), { auth: a.auth }));
    assert.equal(all.pagination?.total ?? all.data.length, 4);
    assert.equal(
      await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
      true,
    );
    await screenshot(page, 'import-refresh-390');
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
