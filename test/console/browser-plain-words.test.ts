/**
 * Words people use: custom fields edited as a form (not raw JSON), merge fields inserted by name
 * (not typed in triple braces), and a refused change said as what it means ("You can view this
 * but not change it"), not as a scope code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureUser } from '../../src/domain/users/members.ts';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { CONSOLE_PASSWORD, type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the console in plain words', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let contactId: string;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 10 });
    const res = await call(svc.api, 'POST', url('/contacts'), {
      auth: a.auth,
      json: { firstName: 'Kim', mobile: '+14155550501', attributes: { plan: 'gold', visits: 3 } },
    });
    assert.equal(res.statusCode, 201, res.body);
    contactId = body(res).data[0].id;
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('edits custom fields as names and values: change one, remove one, add one', async () => {
    await page.goto(`${c.base}/console/#/contacts/${contactId}`);
    await page.locator('legend', { hasText: 'Custom fields' }).waitFor();
    assert.equal(await page.locator('textarea[name=attributes]').count(), 0);
    const rows = page.locator('.kv-row');
    assert.equal(await rows.count(), 2);
    assert.equal(await rows.nth(0).locator('input[name=fieldName]').inputValue(), 'plan');
    assert.equal(await rows.nth(0).locator('input[name=fieldValue]').inputValue(), 'gold');
    await rows.nth(0).locator('input[name=fieldValue]').fill('silver');
    await rows.nth(1).locator('input[name=fieldValue]').fill('4');
    await page.locator('button', { hasText: 'Add a field' }).click();
    await rows.nth(2).locator('input[name=fieldName]').fill('city');
    await rows.nth(2).locator('input[name=fieldValue]').fill('Oslo');
    await page.locator('button', { hasText: /^Save$/ }).click();
    await page.locator('.flash-info', { hasText: 'Contact saved.' }).waitFor();
    let got = body(await call(svc.api, 'GET', url(`/contacts/${contactId}`), { auth: a.auth })).data;
    assert.deepEqual(got.attributes, { plan: 'silver', visits: 4, city: 'Oslo' });
    await rows.nth(2).locator('button', { hasText: 'Remove' }).click();
    await page.evaluate(() => document.querySelector('.flash')?.remove());
    await page.locator('button', { hasText: /^Save$/ }).click();
    await page.locator('.flash-info', { hasText: 'Contact saved.' }).waitFor();
    got = body(await call(svc.api, 'GET', url(`/contacts/${contactId}`), { auth: a.auth })).data;
    assert.deepEqual(got.attributes, { plan: 'silver', visits: 4 });
    // A field with a value and no name is caught with a sentence that says what to do.
    await page.locator('button', { hasText: 'Add a field' }).click();
    await page.locator('.kv-row').last().locator('input[name=fieldValue]').fill('orphan');
    await page.locator('button', { hasText: /^Save$/ }).click();
    await page
      .locator('.flash-error', { hasText: 'Give the field with the value “orphan” a name.' })
      .waitFor();
  });

  it('offers merge fields by name on templates, not triple braces to type', async () => {
    await page.goto(`${c.base}/console/#/templates`);
    await page.locator('textarea[name=template]').waitFor();
    await page.locator('button', { hasText: '+ First name' }).click();
    assert.equal(await page.inputValue('textarea[name=template]'), '{{{firstName}}}');
    assert.equal(await page.getByText('triple braces').count(), 0);
  });

  it('changes the account name (shown in the STOP reply) and its time zone from the overview', async () => {
    await page.goto(`${c.base}/console/#/overview`);
    await page.locator('input[name=accountName]').fill('Kim Flowers');
    assert.match(
      (await page.locator('[data-test=stop-sample]').textContent()) ?? '',
      /“Kim Flowers: You are unsubscribed/,
    );
    await page.selectOption('select[name=timezone]', 'America/Chicago');
    await page.locator('button', { hasText: 'Save account settings' }).click();
    await page.locator('.flash-info', { hasText: 'Account settings saved.' }).waitFor();
    const got = body(await call(svc.api, 'GET', url(''), { auth: a.auth })).data;
    assert.equal(got.name, 'Kim Flowers');
    assert.equal(got.timezone, 'America/Chicago');
  });

  it('shows a static list without a stray "null", and a smart list’s filter in words', async () => {
    const mk = async (json: object) => {
      const res = body(await call(svc.api, 'POST', url('/lists'), { auth: a.auth, json })).data;
      return (Array.isArray(res) ? res[0] : res).id as string;
    };
    const staticId = await mk({ name: 'Static one' });
    const smartId = await mk({ name: 'Smart one', filter: { q: 'Kim' } });
    await page.goto(`${c.base}/console/#/lists/${staticId}`);
    await page.locator('h2', { hasText: 'Static one' }).waitFor();
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /null/);
    await page.goto(`${c.base}/console/#/lists/${smartId}`);
    await page.locator('h2', { hasText: 'Smart one' }).waitFor();
    await page.getByText('Contacts matching “Kim”.').waitFor();
  });

  it('tells a Viewer "You can view this but not change it", not a scope code', async () => {
    await ensureUser(
      svc.db,
      a.accountId,
      {
        email: 'viewer@example.com',
        password: CONSOLE_PASSWORD,
        role: 'Viewer',
        hashCost: svc.config.secretHashCost,
      },
      {},
    );
    await page.locator('button', { hasText: 'Sign out' }).click();
    await page.locator('input[name=email]').waitFor();
    await page.fill('input[name=email]', 'viewer@example.com');
    await page.fill('input[name=password]', CONSOLE_PASSWORD);
    await page.click('button[type=submit]');
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    await page.goto(`${c.base}/console/#/contacts/new`);
    await page.fill('input[name=firstName]', 'Nope');
    await page.fill('input[name=mobile]', '+14155550502');
    await page.locator('button', { hasText: 'Create contact' }).click();
    const alert = page.locator('.flash-error');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /^You can view this but not change it/);
    assert.doesNotMatch(text, /scope|AUTH-004/);
  });

  it('lets a Viewer read a conversation with unread texts (opening it cannot mark it read)', async () => {
    const ours = body(await call(svc.api, 'GET', url('/phonenumbers'), { auth: a.auth })).data[0].number;
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550501', to: ours, text: 'Are you open today?' },
    });
    const conversationId = body(res).data.conversationId;
    await page.goto(`${c.base}/console/#/inbox/${conversationId}`);
    await page.locator('.bubble.in', { hasText: 'Are you open today?' }).waitFor();
    assert.equal(await page.locator('.flash-error').count(), 0);
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
