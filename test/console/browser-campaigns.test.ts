/**
 * Campaigns as a workflow: one form; a draft saved, found by its name's link, edited with a
 * template and merge fields by name, previewed for a real member, reviewed and launched once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('campaigns: draft, edit, review, launch', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;
  const get = async (p: string) => body(await call(svc.api, 'GET', url(p), { auth: a.auth }));

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 20 });
    const ids: string[] = [];
    for (const [firstName, mobile] of [
      ['Ada', '+14155550701'],
      ['Bo', '+14155550702'],
    ]) {
      const res = await call(svc.api, 'POST', url('/contacts'), {
        auth: a.auth,
        json: { firstName, mobile },
      });
      ids.push(body(res).data[0].id);
    }
    const list = body(
      await call(svc.api, 'POST', url('/lists'), { auth: a.auth, json: { name: 'Regulars' } }),
    ).data;
    const listId = (Array.isArray(list) ? list[0] : list).id;
    await call(svc.api, 'POST', url(`/lists/${listId}/contacts`), {
      auth: a.auth,
      json: { contactIds: ids },
    });
    await call(svc.api, 'POST', url('/templates'), {
      auth: a.auth,
      json: { name: 'Weekend', template: 'Hi {{{firstName}}}, 10% off this weekend.' },
    });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('has one creation form, and saves a draft', async () => {
    await page.goto(`${c.base}/console/#/campaigns`);
    await page.locator('form.campaign-editor').waitFor();
    assert.equal(await page.locator('form.campaign-editor').count(), 1);
    assert.equal(await page.locator('form', { hasText: 'Quick campaign' }).count(), 0);
    await page.fill('form.campaign-editor input[name=name]', 'Weekend deal');
    await page.selectOption('form.campaign-editor select[name=listId]', { label: 'Regulars (2)' });
    await page.fill('form.campaign-editor textarea[name=message]', 'Draft text');
    await page.locator('button', { hasText: 'Save draft' }).click();
    await page.locator('h3', { hasText: 'Edit “Weekend deal”' }).waitFor();
    const [camp] = (await get('/campaigns')).data;
    assert.equal(camp.status, 'draft');
    assert.equal(camp.template, 'Draft text');
  });

  it('opens the draft from its name, edits it with a template and a merge field, previews it for a member', async () => {
    await page.goto(`${c.base}/console/#/campaigns`);
    await page.locator('td a', { hasText: 'Weekend deal' }).click();
    await page.locator('h3', { hasText: 'Edit “Weekend deal”' }).waitFor();
    assert.equal(await page.inputValue('form.campaign-editor textarea[name=message]'), 'Draft text');
    await page.selectOption('form.campaign-editor select[name=template]', { label: 'Weekend' });
    assert.equal(
      await page.inputValue('form.campaign-editor textarea[name=message]'),
      'Hi {{{firstName}}}, 10% off this weekend.',
    );
    await page.locator('form.campaign-editor textarea[name=message]').press('End');
    await page.locator('form.campaign-editor button', { hasText: '+ Last name' }).click();
    await page.fill(
      'form.campaign-editor textarea[name=message]',
      'Hi {{{firstName}}}, 10% off this weekend.',
    );
    await page.locator('form.campaign-editor textarea[name=message]').dispatchEvent('input');
    const preview = page.locator('[data-test=campaign-preview]');
    await preview.filter({ hasText: '10% off this weekend' }).waitFor();
    assert.match(
      (await preview.textContent()) ?? '',
      /(Ada|Bo)\u2069 gets: “Hi (Ada|Bo), 10% off this weekend\.”/,
    );
  });

  it('reviews and launches the draft once; the campaign sends to the list', async () => {
    await page.locator('button', { hasText: 'Review and launch' }).click();
    const review = page.locator('section.review');
    await review.locator('[data-test=review-recipients]', { hasText: '2 will get it' }).waitFor();
    assert.match((await review.locator('[data-test=review-cost]').textContent()) ?? '', /USD/);
    await review.locator('button', { hasText: 'Launch to 2 recipients' }).dblclick();
    await page.locator('.flash-info', { hasText: '“Weekend deal” is launched.' }).waitFor();
    const sent = await eventually(async () => {
      const m = (await get('/messages?limit=20')).data.filter((x: { campaignId?: string }) => x.campaignId);
      return m.length >= 2 ? m : undefined;
    });
    assert.equal(sent.length, 2);
    assert.deepEqual(sent.map((m: { message: string }) => m.message).sort(), [
      'Hi Ada, 10% off this weekend.',
      'Hi Bo, 10% off this weekend.',
    ]);
    const campaigns = (await get('/campaigns')).data;
    assert.equal(campaigns.length, 1, 'one campaign, edited, not a second one');
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
