/**
 * Team and credentials (issue 27): open invitations listed on the users page as soon as they are
 * made, sent again (a new link) and revoked; API credentials created with the scopes chosen (the
 * marketing set by default, not all of them), listed at once, with Copy buttons for the account
 * id, the client id and the secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

const MARKETING = [
  'account:read',
  'campaigns:read',
  'campaigns:write',
  'contacts:read',
  'contacts:write',
  'conversations:read',
  'conversations:write',
  'forms:read',
  'links:read',
  'links:write',
  'lists:read',
  'lists:write',
  'messages:read',
  'messages:send',
  'templates:read',
  'templates:write',
];

describe('team and API credentials in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;
  const linkWorks = async (link: string) =>
    (await call(svc.api, 'GET', `/console/api/invitations/${link.split('/accept/')[1]}`)).statusCode === 200;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount();
    await c.signIn(a);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('lists an invitation as soon as it is made, sends it again with a new link, revokes it', async () => {
    await page.click('a[href="#/users"]');
    await page.getByText('No invitation is waiting to be accepted.').waitFor();
    await page.fill('input[name=email]', 'vera@example.com');
    await page.selectOption('select[name=role]', 'Viewer');
    await page.locator('button', { hasText: 'Create invitation link' }).click();
    const first = await page.getByLabel('Invitation link').inputValue();
    const row = page.locator('tr', { hasText: 'vera@example.com' });
    await row.locator('td', { hasText: 'Viewer' }).waitFor();
    await screenshot(page, 'users-invitations-1280px');

    await row.locator('button', { hasText: 'Send again' }).click();
    await page.locator('.flash-info', { hasText: 'the old one no longer works' }).waitFor();
    const second = await page.getByLabel('Invitation link').inputValue();
    assert.notEqual(second, first);
    assert.equal(await linkWorks(first), false, 'the old link is dead');
    assert.ok(await linkWorks(second));
    assert.equal(await page.locator('tr', { hasText: 'vera@example.com' }).count(), 1);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await row.waitFor();
    const box = await row.boundingBox();
    assert.ok(box && box.width <= 390, `the invitation is a card within the screen (${box?.width} px)`);
    await screenshot(page, 'users-invitations-390px');
    await page.setViewportSize({ width: 1280, height: 800 });

    await row.locator('button', { hasText: 'Revoke' }).click();
    await page.locator('.flash-info', { hasText: 'was revoked' }).waitFor();
    await page.getByText('No invitation is waiting to be accepted.').waitFor();
    assert.equal(await linkWorks(second), false);
    assert.deepEqual(body(await call(svc.api, 'GET', url('/invitations'), { auth: a.auth })).data, []);
  });

  it('creates API credentials with the marketing scopes by default, listed at once, with Copy buttons', async () => {
    await page.click('a[href="#/credentials"]');
    await page.locator('h2', { hasText: 'API credentials' }).waitFor();
    assert.equal(await page.getByLabel('Account id', { exact: true }).inputValue(), a.accountId);
    await page.locator('button[aria-label="Copy account id"]').click();
    await page.locator('.flash-info', { hasText: /^Account id (copied|selected)/ }).waitFor();

    await page.fill('input[name=name]', 'Shop orders');
    await page.locator('button', { hasText: /^Create$/ }).click();
    const secret = await page.getByLabel('Client secret', { exact: true }).inputValue();
    const clientId = await page.getByLabel('Client id', { exact: true }).inputValue();
    assert.equal(await page.locator('button[aria-label="Copy client secret"]').count(), 1);
    assert.equal(await page.locator('button[aria-label="Copy client id"]').count(), 1);
    // Listed without leaving the page.
    await page.locator('tr', { hasText: 'Shop orders' }).locator('code', { hasText: clientId }).waitFor();
    const clients = body(await call(svc.api, 'GET', url('/clients'), { auth: a.auth })).data;
    const made = clients.find((x: { id: string }) => x.id === clientId);
    assert.deepEqual([...made.scopes].sort(), MARKETING, 'the marketing set, not every scope');
    const token = await call(svc.api, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
    });
    assert.equal(token.statusCode, 200, token.body);
    await screenshot(page, 'credentials-1280px');

    await page.fill('input[name=name]', 'Dashboard');
    await page.locator('button', { hasText: 'Read only' }).click();
    await page.locator('input[aria-label="Change contacts"]').waitFor();
    assert.equal(await page.locator('input[aria-label="Change contacts"]').isChecked(), false);
    await page.locator('button', { hasText: /^Create$/ }).click();
    await page.locator('tr', { hasText: 'Dashboard' }).waitFor();
    const all = body(await call(svc.api, 'GET', url('/clients'), { auth: a.auth })).data;
    const dash = all.find((x: { name: string }) => x.name === 'Dashboard');
    assert.ok(
      dash.scopes.length > 10 && dash.scopes.every((s: string) => s.endsWith(':read')),
      dash.scopes.join(),
    );
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('h2', { hasText: 'API credentials' }).waitFor();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 390, `no sideways scroll at 390 px (${wide} px)`);
    await screenshot(page, 'credentials-390px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
