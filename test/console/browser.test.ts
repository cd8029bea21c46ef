/**
 * The console's main flows driven in a real browser (Debian's Chromium through playwright-core)
 * against the service on a real listener with its workers running.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import {
  adminEmail,
  CONSOLE_PASSWORD,
  type ConsoleSession,
  skipWithoutChromium,
  startConsole,
} from './browser.ts';

describe('the web console in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let ourNumber: string;
  let contactId: string;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    const numbers = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }),
    );
    ourNumber = numbers.data[0].number;
  });
  after(() => c?.close());

  const flash = (p: Page) => p.locator('.flash').first();

  it('shows the sign-in error when the password is wrong, and stays signed out', async () => {
    await c.signIn(a, 'not the password');
    const alert = page.locator('.flash-error');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /The e-mail or password is wrong\. \(USER-001\)/);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('sparrow.console.session')), null);
    assert.equal(await page.locator('nav').count(), 0);
  });

  it('signs in and shows the overview: account, balance and the account’s number', async () => {
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    await page.locator('td', { hasText: ourNumber }).first().waitFor();
    assert.match((await page.locator('[data-test=balance]').textContent()) ?? '', /50/);
    const stored = await page.evaluate(() =>
      JSON.parse(sessionStorage.getItem('sparrow.console.session') ?? '{}'),
    );
    assert.equal(stored.accountId, a.accountId);
    assert.ok(stored.token);
    assert.equal(stored.role, 'Administrator');
    assert.ok(!JSON.stringify(stored).includes(CONSOLE_PASSWORD), 'the password is never stored');
    // The session cookie is HttpOnly: the page's script cannot read it.
    assert.equal(await page.evaluate(() => document.cookie), '');
  });

  it('creates a contact', async () => {
    await page.click('a[href="#/contacts"]');
    await page.locator('a', { hasText: 'New contact' }).click();
    await page.fill('input[name=firstName]', 'Ada');
    await page.fill('input[name=lastName]', 'Lovelace');
    await page.fill('input[name=mobile]', '+14155550142');
    await page.fill('input[name=tags]', 'vip, beta');
    await page.locator('button', { hasText: 'Create contact' }).click();
    await page.locator('h2', { hasText: 'Ada Lovelace' }).waitFor();
    assert.match((await flash(page).textContent()) ?? '', /Contact created/);
    const list = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts?mobile=4155550142`, { auth: a.auth }),
    );
    assert.equal(list.data.length, 1);
    assert.deepEqual(
      list.data[0].tags.map((t: { tag: string }) => t.tag),
      ['vip', 'beta'],
    );
    contactId = list.data[0].id;
    assert.ok(page.url().endsWith(`#/contacts/${contactId}`));
  });

  it('counts segments live, sends a message and shows it reach delivered on the messages page', async () => {
    await page.locator('a', { hasText: 'Send a message' }).click();
    await page.locator('.chip', { hasText: 'Ada Lovelace' }).waitFor();
    const counter = page.locator('[data-test=segments]').first();
    await page.fill('textarea[name=text]', 'a'.repeat(161));
    assert.equal(await counter.textContent(), '161 / 306 characters · GSM-7 · 2 segments');
    await page.fill('textarea[name=text]', 'Hello 😀');
    assert.equal(await counter.textContent(), '8 / 70 UCS-2 units · UCS-2 · 1 segment');
    // Smart encoding (the account's setting, on): typographic quotes and dashes are counted as the
    // GSM-7 characters they are sent as; with the box unticked, as typed.
    const typed = `It\u2019s \u201Cready\u201D \u2014 ${'x'.repeat(60)}`;
    await page.fill('textarea[name=text]', typed);
    assert.equal(await counter.textContent(), '75 / 160 characters · GSM-7 · 1 segment');
    await page.uncheck('input[name=smartEncoding]');
    assert.equal(await counter.textContent(), '75 / 134 UCS-2 units · UCS-2 · 2 segments');
    await page.check('input[name=smartEncoding]');
    await page.fill('textarea[name=text]', 'Hi {{{firstName}}}, your order shipped.');
    assert.match(
      (await page.locator('.counter').first().textContent()) ?? '',
      /For \u2068Ada Lovelace\u2069: “Hi Ada, your order shipped\.”/,
    );
    await page.locator('button', { hasText: 'Review and send' }).click();
    await page.locator('section.review button', { hasText: 'Send to 1 recipient' }).click();
    await page.locator('.flash-info', { hasText: '1 queued, 0 not sent' }).waitFor();
    assert.match((await flash(page).textContent()) ?? '', /Estimated price \d+\.\d+ USD/);
    await page.locator('a', { hasText: 'Follow the messages' }).click();
    await page.locator('h2', { hasText: 'Messages' }).waitFor();
    // The list refreshes itself while a message may still move.
    const row = page.locator('tr', { hasText: 'Hi Ada, your order shipped.' });
    await row.locator('.badge', { hasText: 'delivered' }).waitFor();
    await page.selectOption('select[name=status]', 'delivered');
    await page.locator('tr', { hasText: 'Hi Ada, your order shipped.' }).waitFor();
    await page.selectOption('select[name=status]', 'failed');
    await page.locator('p.empty', { hasText: 'No messages match.' }).waitFor();
  });

  it('shows an inbound text as unread in the inbox, and replies from the thread', async () => {
    const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550142', to: ourNumber, text: 'Thanks! When does it arrive?' },
    });
    assert.equal(inbound.statusCode, 200);
    const conversationId = body(inbound).data.conversationId;
    await page.click('a[href="#/inbox"]');
    const link = page.locator(`a[href="#/inbox/${conversationId}"]`);
    await link.locator('.count', { hasText: '1' }).waitFor();
    assert.match(
      (await page.locator('tr', { has: link }).textContent()) ?? '',
      /Thanks! When does it arrive\?/,
    );
    await link.click();
    await page.locator('.bubble.in', { hasText: 'Thanks! When does it arrive?' }).waitFor();
    // Opening the thread marks it read.
    const conv = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/conversations/${conversationId}`, {
        auth: a.auth,
      }),
    );
    assert.deepEqual(conv.data.unread, []);
    await page.fill('textarea[name=reply]', 'Tomorrow before noon.');
    await page.locator('button', { hasText: 'Send reply' }).click();
    await page.locator('.bubble.out', { hasText: 'Tomorrow before noon.' }).waitFor();
    const sent = await eventually(async () => {
      const res = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages?conversationId=${conversationId}`, {
          auth: a.auth,
        }),
      );
      return res.data.find((m: { message: string }) => m.message === 'Tomorrow before noon.');
    });
    assert.equal(sent.outgoing, true);
    assert.equal(sent.contact.id, contactId);
    await page.locator('button', { hasText: 'Close conversation' }).click();
    await page.locator('.flash-info', { hasText: 'Conversation closed.' }).waitFor();
  });

  const KEY = 'sparrow.console.session';
  const stored = () => page.evaluate((k) => JSON.parse(sessionStorage.getItem(k) ?? 'null'), KEY);
  const patchSession = (patch: Record<string, unknown>) =>
    page.evaluate(
      ([k, p]) =>
        sessionStorage.setItem(k, JSON.stringify({ ...JSON.parse(sessionStorage.getItem(k) ?? '{}'), ...p })),
      [KEY, patch] as const,
    );

  it('renews an expired token, and one the server refuses, without asking again', async () => {
    const first = await stored();
    await patchSession({ expiresAt: Date.now() - 1000 });
    await page.click('a[href="#/overview"]');
    // The balance shows once the page's calls have answered.
    await page.locator('[data-test=balance]').waitFor();
    const renewed = await stored();
    assert.notEqual(renewed.token, first.token);
    assert.ok(renewed.expiresAt > Date.now());

    await patchSession({ token: 'not.a.token' });
    await page.click('a[href="#/contacts"]');
    await page.locator('td a', { hasText: 'Ada Lovelace' }).waitFor();
    assert.notEqual((await stored()).token, 'not.a.token');
    assert.equal(await page.locator('.flash-error').count(), 0);
  });

  it('after a reload carries on from the session cookie; once the session ends, asks to sign in again', async () => {
    // The previous test ended on the contacts page; the reload shows it again, signed in.
    await page.reload();
    await page.locator('td a', { hasText: 'Ada Lovelace' }).waitFor();
    // The server-side session ends (signed out elsewhere): the next renewal fails.
    await svc.db.query(
      `UPDATE user_sessions SET revoked_at = now() WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [adminEmail(a)],
    );
    await patchSession({ expiresAt: Date.now() - 1000 });
    await page.click('a[href="#/overview"]');
    const alert = page.locator('.flash-error');
    await alert.waitFor();
    assert.equal(await alert.textContent(), 'Your session has ended. Sign in again. (USER-003)');
    assert.equal(await page.inputValue('input[name=email]'), adminEmail(a));
    assert.equal(await stored(), null);
    await page.fill('input[name=password]', CONSOLE_PASSWORD);
    await page.click('button[type=submit]');
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });

  it('renders names and texts as text, never as markup', async () => {
    const evil = '<img src=x onerror="window.__pwned=1">';
    await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { firstName: evil, mobile: '+14155550199' },
    });
    await page.click('a[href="#/contacts"]');
    await page.locator('td a', { hasText: evil }).waitFor();
    assert.equal(await page.locator('td img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  });

  it('signs out, clearing the session', async () => {
    await page.locator('button', { hasText: 'Sign out' }).click();
    await page.locator('input[name=password]').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('sparrow.console.session')), null);
    // The cookie's session ended on the server too: a reload does not sign back in.
    await page.reload();
    await page.locator('input[name=password]').waitFor();
  });

  it('shows in the review that the balance cannot cover a send, and does not offer to send it', async () => {
    const poor = await svc.newAccount({ balance: 0 });
    await c.signIn(poor);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    await page.click('a[href="#/compose"]');
    await page.check('input[name=mode][value=mobiles]');
    await page.fill('textarea[name=mobiles]', '+14155550177');
    await page.fill('textarea[name=text]', 'Hello');
    // The review says so before anything is tried, and its Send button is off.
    await page.locator('button', { hasText: 'Review and send' }).click();
    const alert = page.locator('section.review [role=alert]');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /The balance cannot cover this send/);
    assert.equal(
      await page.locator('section.review button', { hasText: 'Send to 1 recipient' }).isDisabled(),
      true,
    );
  });

  it('raised no script error and no Content-Security-Policy violation on the way', () => {
    assert.deepEqual(c.problems, []);
  });
});
