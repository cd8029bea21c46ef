/**
 * The account's replies to STOP, START and HELP edited on the overview's account settings (issue
 * 27): the texter gets the edited STOP reply; a reply carriers would not accept is refused with
 * what to say instead; the form fits a 390 px phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('keyword replies in the account settings', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 10 });
    await call(svc.api, 'PUT', url(''), { auth: a.auth, json: { name: 'Kim Flowers' } });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('shows the default replies, saves an edited STOP reply, and a texter who sends STOP gets it', async () => {
    await page.goto(`${c.base}/console/#/overview`);
    const stop = page.locator('textarea[name=reply-optOut]');
    await stop.waitFor();
    assert.match(await stop.inputValue(), /You are unsubscribed and will receive no further messages/);
    assert.match(await page.inputValue('textarea[name=reply-help]'), /Reply STOP to unsubscribe/);
    await stop.fill('');
    await page
      .locator('.keyword-reply', { has: stop })
      .locator('button', { hasText: '+ Account name' })
      .click();
    await stop.press('End');
    await stop.pressSequentially(': Done. You will get no more texts from us. Reply START to come back.');
    assert.equal(
      (await page.locator('[data-test=stop-sample]').textContent()) ?? '',
      'A STOP is answered: “Kim Flowers: Done. You will get no more texts from us. Reply START to come back.”',
    );
    await screenshot(page, 'keyword-replies-1280');
    await page.locator('button', { hasText: 'Save account settings' }).click();
    await page.locator('.flash-info', { hasText: 'Account settings saved.' }).waitFor();
    const got = body(await call(svc.api, 'GET', url(''), { auth: a.auth })).data.keywordReplies;
    assert.equal(
      got.optOut,
      '{{{accountName}}}: Done. You will get no more texts from us. Reply START to come back.',
    );
    assert.match(got.optIn, /^\{\{\{accountName\}\}\}: You are subscribed again/, 'unchanged ones stay');

    const ours = body(await call(svc.api, 'GET', url('/phonenumbers'), { auth: a.auth })).data[0].number;
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550811', to: ours, text: 'STOP' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const reply = await eventually(async () =>
      body(await call(svc.api, 'GET', url('/messages?limit=10'), { auth: a.auth })).data.find(
        (m: { outgoing: boolean }) => m.outgoing,
      ),
    );
    assert.equal(
      reply.message,
      'Kim Flowers: Done. You will get no more texts from us. Reply START to come back.',
    );
  });

  it('refuses a STOP reply that does not say no more messages will be sent, saying what it must say', async () => {
    await page.goto(`${c.base}/console/#/overview`);
    await page.fill('textarea[name=reply-optOut]', 'Thanks!');
    await page.locator('button', { hasText: 'Save account settings' }).click();
    await page.locator('.flash-error', { hasText: 'must say that no more messages will be sent' }).waitFor();
    const got = body(await call(svc.api, 'GET', url(''), { auth: a.auth })).data.keywordReplies;
    assert.match(got.optOut, /Done\. You will get no more texts/);
    assert.deepEqual(c.problems, []);
  });

  it('fits a 390 px phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${c.base}/console/#/overview`);
    await page.reload();
    await page.locator('textarea[name=reply-help]').waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
    await page.locator('fieldset.keyword-replies').scrollIntoViewIfNeeded();
    await screenshot(page, 'keyword-replies-390');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
