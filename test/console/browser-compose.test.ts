/**
 * Compose has safety: a review of what the send would do before it goes (recipients after
 * opt-outs and invalid numbers, segments, UCS-2, cost with its currency, sender, when), confirmed
 * once — a second click cannot send again, and the form is locked after it — a test to oneself,
 * a warning when a character forces UCS-2, merge fields by name, and a send scheduled from Compose.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('compose: review, confirm once, test, schedule', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;
  const get = async (p: string) => body(await call(svc.api, 'GET', url(p), { auth: a.auth }));
  let listId: string;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    const ids: string[] = [];
    for (const [firstName, mobile] of [
      ['Ann', '+14155550301'],
      ['Zoë', '+14155550302'],
      ['Stop', '+14155550303'],
    ]) {
      const res = await call(svc.api, 'POST', url('/contacts'), {
        auth: a.auth,
        json: { firstName, mobile },
      });
      assert.equal(res.statusCode, 201, res.body);
      ids.push(body(res).data[0].id);
    }
    const ours = (await get('/phonenumbers')).data[0].number;
    const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550303', to: ours, text: 'STOP' },
    });
    assert.equal(stop.statusCode, 200, stop.body);
    const list = await call(svc.api, 'POST', url('/lists'), { auth: a.auth, json: { name: 'Customers' } });
    assert.equal(list.statusCode, 201, list.body);
    const created = body(list).data;
    listId = (Array.isArray(created) ? created[0] : created).id;
    const added = await call(svc.api, 'POST', url(`/lists/${listId}/contacts`), {
      auth: a.auth,
      json: { contactIds: ids },
    });
    assert.ok(added.statusCode < 300, added.body);
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('warns when a character forces UCS-2, and offers plain letters', async () => {
    await page.goto(`${c.base}/console/#/compose?list=${listId}`);
    await page.fill('textarea[name=text]', `Noël open ${'x'.repeat(70)}`);
    const warning = page.locator('[data-test=ucs2-warning]');
    await warning.waitFor();
    assert.match(
      (await warning.textContent()) ?? '',
      /ë is not in the GSM-7 alphabet.*UCS-2.*1 segment instead of 2/,
    );
    await page.locator('button', { hasText: 'Use plain letters' }).click();
    assert.equal(await page.inputValue('textarea[name=text]'), `Noel open ${'x'.repeat(70)}`);
    assert.equal(await warning.count(), 0);
  });

  it('inserts merge fields by name, not by braces typed by hand', async () => {
    await page.fill('textarea[name=text]', 'Hi ');
    await page.locator('textarea[name=text]').press('End');
    await page.locator('button', { hasText: '+ First name' }).click();
    assert.equal(await page.inputValue('textarea[name=text]'), 'Hi {{{firstName}}}');
    assert.equal(await page.locator('.merge-fields button', { hasText: '{{{' }).count(), 0);
  });

  it('reviews before sending: recipients after the opt-out, segments, UCS-2 names, cost in USD; nothing sent yet', async () => {
    await page.fill('textarea[name=text]', `Hi {{{firstName}}}, ${'x'.repeat(66)}`);
    await page.locator('button', { hasText: 'Review and send' }).click();
    const review = page.locator('section.review');
    await review.locator('h3', { hasText: 'Review before sending' }).waitFor();
    const text = async (k: string) => (await review.locator(`[data-test=review-${k}]`).textContent()) ?? '';
    assert.match(await text('recipients'), /^2 will get it; 1 will not: 1 opted out or blocked$/);
    assert.match(await text('segments'), /^3 in all/);
    assert.match(await text('encoding'), /^1 of 2 messages in UCS-2/);
    assert.match(await text('cost'), /^\d+\.\d+ USD \(balance 50\.00 USD\)$/);
    assert.match(await text('when'), /^Now$/);
    // The form is locked while the review is shown; nothing has been sent.
    assert.equal(await page.locator('textarea[name=text]').isDisabled(), true);
    assert.equal(
      (await get('/messages?limit=100')).data.filter((m: { jobId?: string }) => m.jobId).length,
      0,
    );
  });

  it('sends once on confirmation, even clicked twice, and leaves the form locked with the outcome', async () => {
    const confirm = page.locator('section.review button', { hasText: 'Send to 2 recipients' });
    await confirm.dblclick();
    await page.locator('[data-test=sent-summary]', { hasText: '2 queued, 1 not sent' }).waitFor();
    assert.match(
      (await page.locator('[data-test=sent-summary]').textContent()) ?? '',
      /Charged \d+\.\d+ USD/,
    );
    // A second attempt is not possible: the form stays locked, the review's buttons are gone.
    assert.equal(await page.locator('textarea[name=text]').isDisabled(), true);
    assert.equal(await page.locator('button', { hasText: 'Send to 2 recipients' }).count(), 0);
    const sent = await eventually(async () => {
      const out = (await get('/messages?limit=100')).data.filter((m: { jobId?: string }) => m.jobId);
      return out.length >= 3 ? out : undefined;
    });
    // One job of three messages (two queued, the opted-out one failed): the double click sent once.
    assert.equal(new Set(sent.map((m: { jobId: string }) => m.jobId)).size, 1);
    assert.equal(sent.length, 3);
    // Write another message: an empty, unlocked form.
    await page.locator('a', { hasText: 'Write another message' }).click();
    await page.locator('textarea[name=text]:not([disabled])').waitFor();
    assert.equal(await page.inputValue('textarea[name=text]'), '');
  });

  it('sends a test to oneself in one click, and remembers the number', async () => {
    await page.fill('textarea[name=text]', 'Test of the spring offer');
    await page.fill('input[name=testMobile]', '+14155550399');
    await page.locator('button', { hasText: 'Send me a test' }).click();
    await page.locator('.flash-info', { hasText: 'Test sent to +14155550399' }).waitFor();
    const sent = await eventually(async () =>
      (await get('/messages?limit=100')).data.find(
        (m: { message: string }) => m.message === 'Test of the spring offer',
      ),
    );
    assert.equal(sent.contact.mobile.number, '+14155550399');
    await page.reload();
    await page.locator('input[name=testMobile]').waitFor();
    assert.equal(await page.inputValue('input[name=testMobile]'), '+14155550399');
  });

  it('schedules a send from Compose', async () => {
    await page.goto(`${c.base}/console/#/compose?list=${listId}`);
    await page.fill('textarea[name=text]', 'Tomorrow’s offer');
    await page.check('input[name=when][value=later]');
    const at = new Date(Date.now() + 2 * 86_400_000);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.fill('input[name=sendAt]', local);
    await page.locator('button', { hasText: 'Review and send' }).click();
    await page.locator('[data-test=review-when]').waitFor();
    assert.notEqual(await page.locator('[data-test=review-when]').textContent(), 'Now');
    await page.locator('section.review button', { hasText: 'Schedule for 2 recipients' }).click();
    await page.locator('[data-test=sent-summary]', { hasText: 'Scheduled for' }).waitFor();
    const jobs = (await get('/jobs?limit=100')).data;
    const scheduled = jobs.filter((j: { status: string }) => j.status === 'scheduled');
    assert.equal(scheduled.length, 1, JSON.stringify(jobs));
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
