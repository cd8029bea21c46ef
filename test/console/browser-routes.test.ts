/**
 * The Routes page in a real browser, on a server with the built-in `twilio` (TWILIO_*) and an SMPP
 * instance `carrier-b` of PROVIDERS: reached from the grouped navigation, its provider menus offer
 * exactly the server's instances (GET …/providers: no `smpp`, which is not configured here); it
 * creates a route for a prefix with three providers in order (priority and weight each), among them
 * `carrier-b`, which the API then holds as entered; a country route; a second route for the same
 * prefix is refused with the API's reason; removing a provider row renumbers the others' labels;
 * delete removes a route. A screenshot of the page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('console routes page in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const routesOf = async () =>
    body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/routes`, { auth: a.auth })).data as {
      id: string;
      prefix?: string;
      country?: string;
      description?: string;
      providers: { provider: string; priority: number; weight: number }[];
    }[];

  before(async () => {
    // Nothing is sent here: neither address is reached but by carrier-b's bind attempts, refused.
    c = await startConsole(
      {},
      {
        env: {
          TWILIO_ACCOUNT_SID: 'AC0000',
          TWILIO_AUTH_TOKEN: 'twilio-token',
          TWILIO_BASE_URL: 'http://127.0.0.1:9',
          SMPP_URL: '',
          PROVIDERS: JSON.stringify([
            { name: 'carrier-b', kind: 'smpp', url: 'smpp://127.0.0.1:9', systemId: 'b', password: 'pw-b' },
          ]),
        },
      },
    );
    ({ svc, page } = c);
    a = await svc.newAccount();
  });
  after(() => c?.close());

  it('offers the server’s provider instances and creates a prefix route with them in order, as the API then holds it', async () => {
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    // In the navigation's Numbers section.
    assert.equal(await page.locator('nav a[href="#/routes"]').count(), 1);
    const section = page.locator('nav .nav-section').filter({ has: page.locator('a[href="#/routes"]') });
    assert.equal(await section.locator('.nav-heading').textContent(), 'Numbers');
    await page.click('nav a[href="#/routes"]');
    await page.locator('main h2', { hasText: 'Routes' }).waitFor();
    await page.locator('text=No routes yet').waitFor();

    // The server's instances, the simulator first, from the API: not a list of the console's own.
    const offered = await page
      .getByLabel('Provider 1', { exact: true })
      .evaluate((select: HTMLSelectElement) => [...select.options].map((o) => [o.value, o.textContent]));
    assert.deepEqual(offered, [
      ['simulator', 'simulator'],
      ['twilio', 'twilio'],
      ['carrier-b', 'carrier-b (smpp)'],
    ]);
    assert.equal(await page.getByLabel('Provider 1', { exact: true }).inputValue(), 'simulator');

    await page.locator('select[name=matches]').selectOption('prefix');
    await page.locator('input[name=prefix]').fill('+4477');
    await page.getByLabel('Provider 1', { exact: true }).selectOption('carrier-b');
    await page.getByLabel('Weight of provider 1').fill('70');
    await page.locator('button', { hasText: 'Add provider' }).click();
    await page.getByLabel('Provider 2', { exact: true }).selectOption('twilio');
    await page.getByLabel('Priority of provider 2').fill('1');
    await page.getByLabel('Weight of provider 2').fill('30');
    await page.locator('button', { hasText: 'Add provider' }).click();
    await page.getByLabel('Provider 3', { exact: true }).selectOption('simulator');
    await page.getByLabel('Priority of provider 3').fill('2');
    await page.locator('input[name=description]').fill('UK mobiles');
    await page.locator('button', { hasText: 'Create route' }).click();
    await page.locator('.flash-info', { hasText: 'Route created.' }).waitFor();
    await page.locator('td', { hasText: 'numbers starting +4477' }).waitFor();

    const [route] = await routesOf();
    assert.equal(route?.prefix, '4477');
    assert.equal(route?.description, 'UK mobiles');
    assert.deepEqual(route?.providers, [
      { provider: 'carrier-b', priority: 1, weight: 70 },
      { provider: 'twilio', priority: 1, weight: 30 },
      { provider: 'simulator', priority: 2, weight: 1 },
    ]);
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll('ol.providers li')].map((li) => li.textContent),
    );
    assert.deepEqual(shown, [
      'carrier-b · priority 1 · weight 70',
      'twilio · priority 1 · weight 30',
      'simulator · priority 2 · weight 1',
    ]);
  });

  it('creates a country route, and shows the API’s reason for a second route of the same prefix', async () => {
    await page.locator('select[name=matches]').selectOption('country');
    await page.locator('input[name=country]').fill('de');
    await page.locator('button', { hasText: 'Create route' }).click();
    await page.locator('td', { hasText: 'country DE' }).waitFor();

    await page.locator('select[name=matches]').selectOption('prefix');
    await page.locator('input[name=prefix]').fill('4477');
    await page.locator('button', { hasText: 'Create route' }).click();
    await page.locator('.flash-error').waitFor();
    assert.equal((await routesOf()).length, 2);
    await screenshot(page, 'routes');
  });

  it('removing a provider row keeps the others in order and renumbers their labels', async () => {
    await page.locator('button', { hasText: 'Add provider' }).click();
    await page.getByLabel('Provider 2', { exact: true }).selectOption('twilio');
    await page.getByLabel('Remove provider 1').click();
    assert.equal(await page.getByLabel('Provider 1', { exact: true }).inputValue(), 'twilio');
    assert.equal(await page.getByLabel('Provider 2', { exact: true }).count(), 0);
    // The last row cannot be removed.
    await page.getByLabel('Remove provider 1').click();
    assert.equal(await page.getByLabel('Provider 1', { exact: true }).count(), 1);
  });

  it('deletes a route', async () => {
    await page.getByLabel('Delete the route for country DE').click();
    await page.locator('.flash-info', { hasText: 'The route for country DE was deleted.' }).waitFor();
    assert.deepEqual(
      (await routesOf()).map((r) => r.country ?? r.prefix),
      ['4477'],
    );
    assert.equal(await page.locator('td', { hasText: 'country DE' }).count(), 0);
    assert.deepEqual(c.problems, []);
  });
});
