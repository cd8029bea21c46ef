/**
 * The console's Jobs page and the contacts page's bulk action, in a real browser: tick contacts,
 * tag them as a job, follow the job to `completed`; cancel a scheduled send from its job page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the web console’s jobs in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const api = (method: 'GET' | 'POST', path: string, json?: unknown) =>
    call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('tags the ticked contacts as a bulk job and shows it complete', async () => {
    const ids: string[] = [];
    for (const [i, name] of ['Ada', 'Brian', 'Cleo'].entries()) {
      const res = await api('POST', '/contacts', { firstName: name, mobile: `+1415555017${i}` });
      assert.equal(res.statusCode, 201, res.body);
      ids.push(body(res).data[0].id);
    }
    await page.click('a[href="#/contacts"]');
    await page.locator('td', { hasText: 'Cleo' }).waitFor();
    await page.check(`input[name=bulk-select][value="${ids[0]}"]`);
    await page.check(`input[name=bulk-select][value="${ids[2]}"]`);
    await page.selectOption('select[name=bulk-action]', 'tag');
    await page.fill('input[name=bulk-tags]', 'vip, console');
    await page.locator('button', { hasText: 'Run' }).click();
    await page.locator('h2', { hasText: 'Job' }).waitFor();
    await page.locator('.badge', { hasText: 'completed' }).waitFor();
    await page.locator('dd', { hasText: '2 / 2 done' }).waitFor();
    const tagged = body(await api('GET', '/contacts?tags=vip'))
      .data.map((x: { id: string }) => x.id)
      .sort();
    assert.deepEqual(tagged, [ids[0], ids[2]].sort());

    await page.click('a[href="#/jobs"]');
    await page.locator('td', { hasText: 'Contacts: Tag vip, console' }).waitFor();
    assert.deepEqual(c.problems, []);
  });

  it('names a campaign send by its campaign, in the list and on its page', async () => {
    const contacts = body(await api('GET', '/contacts')).data;
    const list = body(await api('POST', '/lists', { name: 'Autumn list' })).data;
    const listId = (Array.isArray(list) ? list[0] : list).id;
    await api('POST', `/lists/${listId}/contacts`, { contactIds: [contacts[0].id] });
    const group = body(await api('GET', '/groups')).data[0];
    const quick = await api('POST', '/quickcampaigns', {
      name: 'Autumn <b>sale</b>',
      listId,
      groupId: group.id,
      message: { message: 'Autumn is here' },
    });
    assert.ok(quick.statusCode < 300, quick.body);
    await page.goto(`${c.base}/console/#/jobs?kind=send`);
    const cell = page.locator('td', { hasText: 'Autumn <b>sale</b>' }).first();
    await cell.waitFor();
    assert.match((await cell.textContent()) ?? '', /^Campaign “\u2068Autumn <b>sale<\/b>\u2069”$/);
    await page.locator('tr', { has: cell }).locator('a').first().click();
    await page.locator('dd a', { hasText: 'Autumn <b>sale</b>' }).waitFor();
    assert.deepEqual(c.problems, []);
  });

  it('cancels a scheduled send from its job page', async () => {
    const contacts = body(await api('GET', '/contacts')).data;
    const sent = await api('POST', '/messages', {
      contacts: [{ id: contacts[0].id }],
      template: 'Later',
      sendAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const { jobId } = body(sent).data;
    await page.goto(`${c.base}/console/#/jobs/${jobId}`);
    await page.locator('.badge', { hasText: 'scheduled' }).waitFor();
    await page.locator('button', { hasText: 'Cancel job' }).click();
    await page.locator('dl .badge', { hasText: 'cancelled' }).waitFor();
    assert.equal(body(await api('GET', `/jobs/${jobId}`)).data.status, 'cancelled');
    assert.equal(await page.locator('button', { hasText: 'Cancel job' }).count(), 0);
    assert.deepEqual(c.problems, []);
  });
});
