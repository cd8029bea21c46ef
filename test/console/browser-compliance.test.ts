/**
 * Compliance page: 10DLC brand and campaign and toll-free records made, read back through the API,
 * edited; the opt-out footer help.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the compliance page', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const list = async () =>
    body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/compliance/registrations`, { auth: a.auth }))
      .data;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount();
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('records a 10DLC brand, then a campaign under it with a number and caps', async () => {
    await page.click('nav a[href="#/compliance"]');
    await page.locator('h2', { hasText: 'Compliance' }).waitFor();
    await page.selectOption('select[name=kind]', '10dlc-brand');
    await page.fill('input[name=name]', 'Rosa Bakery LLC');
    await page.fill('input[name=externalId]', 'B1A2C3D');
    await page.selectOption('select[name=status]', 'approved');
    await page.locator('button', { hasText: 'Record it' }).click();
    await page.locator('td a', { hasText: 'Rosa Bakery LLC' }).waitFor();

    await page.selectOption('select[name=kind]', '10dlc-campaign');
    await page.fill('input[name=name]', 'Weekly offers');
    await page.fill('input[name=externalId]', 'C9Z8Y7X');
    await page.selectOption('select[name=parentId]', { label: 'Rosa Bakery LLC' });
    await page.locator('input[name=phoneNumberIds]').first().check();
    await page.fill('input[name=messagesPerSecond]', '4');
    await page.fill('input[name=dailyCap]', '2000');
    await page.locator('button', { hasText: 'Record it' }).click();
    await page.locator('td a', { hasText: 'Weekly offers' }).waitFor();
    const regs = await list();
    const brand = regs.find((r: { kind: string }) => r.kind === '10dlc-brand');
    const camp = regs.find((r: { kind: string }) => r.kind === '10dlc-campaign');
    assert.equal(brand.externalId, 'B1A2C3D');
    assert.equal(brand.status, 'approved');
    assert.equal(camp.parentId, brand.id);
    assert.equal(camp.phoneNumbers.length, 1);
    assert.equal(camp.messagesPerSecond, 4);
    assert.equal(camp.dailyCap, 2000);
    assert.equal(camp.status, 'draft');
    assert.match(
      (await page.locator('tr', { hasText: 'Weekly offers' }).textContent()) ?? '',
      /4\/s · 2000 a day/,
    );
  });

  it('edits a record from its name', async () => {
    await page.locator('td a', { hasText: 'Weekly offers' }).click();
    await page.locator('h3', { hasText: 'Edit “Weekly offers”' }).waitFor();
    await page.selectOption('select[name=status]', 'approved');
    await page.fill('input[name=dailyCap]', '');
    await page.locator('button', { hasText: /^Save$/ }).click();
    await page.locator('.flash-info', { hasText: 'Saved.' }).waitFor();
    const camp = (await list()).find((r: { name: string }) => r.name === 'Weekly offers');
    assert.equal(camp.status, 'approved');
    assert.equal(camp.dailyCap, undefined);
  });

  it('helps with the opt-out footer', async () => {
    assert.equal(
      await page.locator('[data-test=opt-out-footer]').textContent(),
      'Reply STOP to opt out, HELP for help.',
    );
    assert.deepEqual(c.problems, []);
  });
});
