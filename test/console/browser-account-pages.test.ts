/**
 * The account pages of the console in a real browser: Numbers (search, buy, throughput, release),
 * Groups (a user, office hours per weekday), Billing (checkout paid by the simulator, auto top-up) and
 * Calls (a call made through the simulator's call door, and its detail).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureUser } from '../../src/domain/users/members.ts';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { CONSOLE_PASSWORD, type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('console account pages in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const get = async (path: string) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}${path}`, { auth: a.auth })).data;
  const open = async (route: string, heading: string) => {
    await page.click(`a[href="#${route}"]`);
    await page.locator('main h2', { hasText: heading }).waitFor();
  };

  before(async () => {
    c = await startConsole({ rateLimitPerMinute: 1_000_000 });
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 5 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('searches the inventory, buys a number, lists it, changes its throughput and releases it', async () => {
    const before = (await get('/phonenumbers')).map((n: { number: string }) => n.number);
    await open('/numbers', 'Numbers');
    await page.fill('input[name=country]', 'US');
    await page.locator('button', { hasText: 'Search' }).click();
    const buy = page.locator('button', { hasText: /^Buy$/ }).first();
    await buy.waitFor();
    const label = (await buy.getAttribute('aria-label')) ?? '';
    const bought = label.replace(/^Buy /, '');
    assert.match(bought, /^\+\d+$/);
    assert.ok(!before.includes(bought));
    await buy.click();
    await page.locator('.flash-info', { hasText: 'is yours' }).waitFor();
    const row = page.locator('tr', { hasText: bought });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /simulator/);
    const held = (await get('/phonenumbers')).find((n: { number: string }) => n.number === bought);
    assert.ok(held, 'the API lists the bought number');

    await page.getByLabel(`Throughput of ${bought}`).fill('7');
    await page.getByLabel(`Name of ${bought}`).fill('Front desk ‮');
    await page.getByLabel(`Save ${bought}`).click();
    await page.locator('.flash-info', { hasText: 'saved' }).waitFor();
    const saved = await get(`/phonenumbers/${held.id}`);
    assert.equal(saved.throughput, 7);
    assert.equal(saved.name, 'Front desk ‮');
    assert.equal(await page.getByLabel(`Throughput of ${bought}`).inputValue(), '7');

    await page.getByLabel(`Release ${bought}`).click();
    await page.locator('.flash-info', { hasText: 'was released' }).waitFor();
    assert.equal(await page.locator('tr', { hasText: bought }).count(), 0);
    assert.equal((await get(`/phonenumbers/${held.id}`)).status, 'released');
    assert.deepEqual(c.problems, []);
  });

  it('creates a group, gives it a number, a user and office hours per weekday, which the API answers', async () => {
    const ours = (await get('/phonenumbers'))[0];
    await ensureUser(
      svc.db,
      a.accountId,
      { email: 'lee@example.com', role: 'Viewer', firstName: 'Lee', lastName: 'Ray' },
      { id: 'test' },
    );
    await open('/groups', 'Groups');
    await page.fill('input[name=name]', 'Support desk');
    await page.locator('button', { hasText: 'Create group' }).click();
    await page.locator('h2', { hasText: 'Support desk' }).waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    await page.locator('label', { hasText: ours.number }).locator('input').check();
    // Its users are the account's console users: Lee, a Viewer, is one of them.
    await page.locator('label', { hasText: 'lee@example.com' }).locator('input').check();
    await page.check('input[name=officeHoursActive]');
    await page.fill('input[name=timezone]', 'Europe/Paris');
    await page.getByLabel('Add hours on Monday').click();
    await page.getByLabel('Monday opens').fill('08:30');
    await page.getByLabel('Monday closes').fill('12:00');
    await page.getByLabel('Add hours on Monday').click();
    await page.getByLabel('Monday opens').nth(1).fill('13:15');
    await page.getByLabel('Monday closes').nth(1).fill('18:45');
    await page.getByLabel('Add hours on Saturday').click();
    await page.locator('button', { hasText: 'Save group' }).click();
    await page.locator('.flash-info', { hasText: 'Group saved.' }).waitFor();

    const g = await get(`/groups/${id}`);
    assert.equal(g.name, 'Support desk');
    assert.deepEqual(
      g.phoneNumbers.map((n: { id: string }) => n.id),
      [ours.id],
    );
    assert.deepEqual(
      g.users.map((u: { email: string; firstName: string; role: string }) => [u.email, u.firstName, u.role]),
      [['lee@example.com', 'Lee', 'Viewer']],
    );
    assert.equal(
      await page.locator('label', { hasText: 'lee@example.com' }).locator('input').isChecked(),
      true,
    );
    assert.equal(g.officeHours.active, true);
    assert.equal(g.officeHours.timezone, 'Europe/Paris');
    assert.deepEqual(g.officeHours.times.mon, [
      { start: { hour: 8, minute: 30 }, end: { hour: 12, minute: 0 } },
      { start: { hour: 13, minute: 15 }, end: { hour: 18, minute: 45 } },
    ]);
    assert.deepEqual(g.officeHours.times.sat, [
      { start: { hour: 9, minute: 0 }, end: { hour: 17, minute: 0 } },
    ]);
    assert.deepEqual(g.officeHours.times.tue ?? [], []);
    // The saved hours are shown again on the group's page.
    assert.equal(await page.getByLabel('Monday closes').nth(1).inputValue(), '18:45');

    await page.locator('button', { hasText: 'Delete' }).click();
    await page.locator('.flash-info', { hasText: 'Group deleted.' }).waitFor();
    const gone = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/groups/${id}`, { auth: a.auth });
    assert.equal(gone.statusCode, 404);
    assert.deepEqual(c.problems, []);
  });

  it('opens a checkout the simulator pays, then enables auto top-up, which the API answers', async () => {
    await open('/billing', 'Billing');
    assert.match((await page.locator('[data-test=balance]').textContent()) ?? '', /^5\.00/);
    // Without a saved payment method auto top-up is refused with the envelope's code.
    await page.fill('input[name=threshold]', '10');
    await page.fill('input[name=amount]', '25');
    await page.locator('button', { hasText: 'Enable auto top-up' }).click();
    await page.locator('.flash-error', { hasText: 'BILL-002' }).waitFor();

    await page.selectOption('select[name=plan]', 'starter');
    await page.fill('input[name=commitment]', '30');
    await page.fill('input[name=billingName]', 'Acme ‮ Ltd');
    await page.fill('input[name=billingEmail]', 'billing@example.com');
    await page.locator('button', { hasText: 'Open checkout' }).click();
    const link = page.locator('[data-test=checkout-url]');
    await link.waitFor();
    const url = (await link.getAttribute('href')) ?? '';
    assert.match(url, /\/checkout\/[^/]+$/);
    const paid = await call(svc.externals, 'POST', `${new URL(url).pathname}/pay`);
    assert.equal(paid.statusCode, 303, paid.body);

    await open('/overview', 'Overview');
    await open('/billing', 'Billing');
    assert.match((await page.locator('[data-test=balance]').textContent()) ?? '', /^35\.00/);
    assert.equal(await page.locator('[data-test=plan]').textContent(), 'starter');
    await page.locator('tr', { hasText: 'checkout' }).first().waitFor();

    await page.fill('input[name=threshold]', '10');
    await page.fill('input[name=amount]', '25');
    await page.fill('input[name=maxPerMonth]', '3');
    await page.locator('button', { hasText: 'Enable auto top-up' }).click();
    await page.locator('.flash-info', { hasText: 'Auto top-up enabled.' }).waitFor();
    const t = await get('/autotopup');
    assert.equal(t.enabled, true);
    assert.equal(t.threshold, 10);
    assert.equal(t.amount, 25);
    assert.equal(t.maxPerMonth, 3);
    assert.equal(await page.locator('input[name=maxPerMonth]').inputValue(), '3');

    await page.locator('button', { hasText: /^Disable$/ }).click();
    await page.locator('.flash-info', { hasText: 'Auto top-up disabled.' }).waitFor();
    assert.equal((await get('/autotopup')).enabled, false);
    assert.deepEqual(c.problems, []);
  });

  it('lists a call made through the simulator and shows its detail', async () => {
    const ours = (await get('/phonenumbers'))[0];
    const made = await call(svc.externals, 'POST', '/v1/providers/simulator/calls', {
      json: { from: '+12015550177', to: ours.number, duration: 42 },
    });
    assert.equal(made.statusCode < 300, true, made.body);
    const id = body(made).data.id;
    await open('/calls', 'Calls');
    const row = page.locator('tr', { hasText: '+12015550177' });
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    assert.match(text, /inbound/);
    assert.match(text, /42 s/);
    await row.locator('a').click();
    await page.locator('h2', { hasText: /^Call$/ }).waitFor();
    const detail = (await page.locator('dl.detail').textContent()) ?? '';
    assert.ok(detail.includes(id));
    assert.match(detail, /completed/);
    const call1 = await get(`/calls/${id}`);
    if (call1.recordingUrl)
      assert.equal(await page.locator('[data-test=recording]').getAttribute('href'), call1.recordingUrl);
    assert.deepEqual(c.problems, []);
  });

  it('shows a Member the Numbers, Groups and Calls pages but not Billing', async () => {
    await ensureUser(
      svc.db,
      a.accountId,
      {
        email: 'member@example.com',
        password: CONSOLE_PASSWORD,
        role: 'Member',
        hashCost: svc.config.secretHashCost,
      },
      {},
    );
    await page.locator('button', { hasText: 'Sign out' }).click();
    await page.locator('input[name=password]').waitFor();
    await page.fill('input[name=email]', 'member@example.com');
    await page.fill('input[name=password]', CONSOLE_PASSWORD);
    await page.click('button[type=submit]');
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    for (const route of ['/numbers', '/groups', '/calls'])
      assert.equal(await page.locator(`a[href="#${route}"]`).count(), 1);
    assert.equal(await page.locator('a[href="#/billing"]').count(), 0);
    assert.deepEqual(c.problems, []);
  });
});
