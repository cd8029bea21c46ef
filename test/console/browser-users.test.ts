/**
 * Console users in a real browser: an administrator invites a Member by link, the Member joins and
 * sees no Users or API credentials pages; the administrator creates and revokes API credentials.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('console users and API credentials in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 5 });
  });
  after(() => c?.close());

  it('lets an administrator invite a Member, who joins by the link with a password', async () => {
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    await page.click('a[href="#/users"]');
    await page.locator('h2', { hasText: 'Users' }).waitFor();
    await page.fill('input[name=email]', 'mia@example.com');
    await page.selectOption('select[name=role]', 'Member');
    await page.locator('button', { hasText: 'Create invitation link' }).click();
    const linkBox = page.getByLabel('Invitation link');
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    assert.match(link, /\/console\/#\/accept\/inv_[A-Za-z0-9_-]+$/);

    await page.locator('button', { hasText: 'Sign out' }).click();
    await page.locator('input[name=password]').waitFor();
    await page.goto(`${c.base}/console/#/accept/${link.split('/accept/')[1]}`);
    await page.locator('h1', { hasText: 'Join Sparrow' }).waitFor();
    await page.fill('input[name=firstName]', 'Mia');
    await page.fill('input[name=password]', 'a long enough password');
    await page.check('input[name=acceptTerms]');
    await page.locator('button', { hasText: 'Join' }).click();
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    // A Member has no Users or API credentials pages.
    assert.equal(await page.locator('a[href="#/users"]').count(), 0);
    assert.equal(await page.locator('a[href="#/credentials"]').count(), 0);
    assert.match((await page.locator('.who').textContent()) ?? '', /mia@example\.com · Member/);
    assert.deepEqual(c.problems, []);
  });

  it('creates API credentials showing the secret once, which the token endpoint accepts; then revokes them', async () => {
    await page.locator('button', { hasText: 'Sign out' }).click();
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    await page.click('a[href="#/credentials"]');
    await page.locator('h2', { hasText: 'API credentials' }).waitFor();
    await page.fill('input[name=name]', 'Shop orders');
    await page.locator('button', { hasText: /^Create$/ }).click();
    const secretBox = page.locator('input[name=secret]');
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    const row = page.locator('tr', { hasText: 'Shop orders' });
    await page.click('a[href="#/overview"]');
    await page.click('a[href="#/credentials"]');
    await row.waitFor();
    const clientId = (await row.locator('code').textContent()) ?? '';
    const token = await call(svc.api, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
    });
    assert.equal(token.statusCode, 200);
    assert.equal(await page.locator('input[name=secret]').count(), 0, 'the secret is not shown again');
    await row.locator('button', { hasText: 'Revoke' }).click();
    await page
      .locator('tr', { hasText: 'Shop orders' })
      .locator('td', { hasText: /^revoked/ })
      .waitFor();
    const after = await call(svc.api, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
    });
    assert.equal(after.statusCode, 401);
    assert.deepEqual(c.problems, []);
  });

  it('shows today’s and the last 30 days’ figures on the overview, as the reports API answers them', async () => {
    const sent = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { contacts: [{ mobile: { number: '+12025550177', country: 'US' } }], template: 'Dashboard test' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const report = await eventually(async () => {
      const r = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/reports/summary`, { auth: a.auth }),
      ).data;
      return r.totals.delivered === 1 ? r : undefined;
    });
    await page.locator('button', { hasText: 'Sign out' }).click();
    await c.signIn(a);
    const month = page.locator('[data-test=month]');
    await month.waitFor();
    const figure = (label: string) =>
      month.locator('.figure', { hasText: label }).locator('strong').textContent();
    assert.equal(await figure('Sent'), String(report.totals.sent));
    assert.equal(await figure('Delivered'), '1');
    assert.equal(
      await page.locator('[data-test=today] .figure', { hasText: 'Sent' }).locator('strong').textContent(),
      '1',
    );
    assert.equal(await page.locator('svg.chart').count(), 2);
    assert.doesNotMatch((await page.locator('.view').textContent()) ?? '', /\bnull\b/);
    assert.deepEqual(c.problems, []);
  });
});
