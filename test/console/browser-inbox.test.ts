/**
 * The inbox as a team uses it (issue 27): an opted-out contact marked in the list and the thread
 * (also as a 390 px card), saved replies added, changed, deleted and inserted into a reply, a
 * conversation assigned to a person and the inbox filtered by assignee, "Mark unread", and a
 * Viewer who reads all of it and is offered none of the changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ensureUser } from '../../src/domain/users/members.ts';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { CONSOLE_PASSWORD, type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('the inbox: opted-out marker, saved replies, assignment, mark unread', {
  skip: skipWithoutChromium,
}, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let miaId: string;
  let ours: string;
  /** Conversations: Kim's (opted out), Lee's. */
  let kim: string;
  let lee: string;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;
  const say = async (from: string, text: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: ours, text },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data.conversationId as string;
  };
  const get = async (p: string) => body(await call(svc.api, 'GET', url(p), { auth: a.auth })).data;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 10 });
    ours = (await get('/phonenumbers'))[0].number;
    for (const [firstName, mobile] of [
      ['Kim', '+14155550601'],
      ['Lee', '+14155550602'],
    ]) {
      const res = await call(svc.api, 'POST', url('/contacts'), {
        auth: a.auth,
        json: { firstName, mobile },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    kim = await say('+14155550601', 'Hello there');
    await say('+14155550601', 'STOP');
    lee = await say('+14155550602', 'When are you open?');
    ({ userId: miaId } = await ensureUser(
      svc.db,
      a.accountId,
      {
        email: 'mia@example.com',
        password: CONSOLE_PASSWORD,
        role: 'Member',
        firstName: 'Mia',
        lastName: 'Wong',
        hashCost: svc.config.secretHashCost,
      },
      {},
    ));
    await c.signIn(a);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('marks an opted-out contact in the list and in the thread, at 1280 and 390 px', async () => {
    await page.goto(`${c.base}/console/#/inbox`);
    const kimRow = page.locator('tr', { has: page.locator(`a[href="#/inbox/${kim}"]`) });
    await kimRow.locator('.badge', { hasText: 'opted out' }).waitFor();
    const leeRow = page.locator('tr', { has: page.locator(`a[href="#/inbox/${lee}"]`) });
    assert.equal(await leeRow.locator('.badge', { hasText: 'opted out' }).count(), 0);
    await screenshot(page, 'inbox-list-1280px');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await kimRow.locator('.badge', { hasText: 'opted out' }).waitFor();
    assert.ok(await kimRow.locator('.badge', { hasText: 'opted out' }).isVisible(), 'in view on a phone');
    const box = await kimRow.locator('.badge', { hasText: 'opted out' }).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `within the screen (${JSON.stringify(box)})`);
    await screenshot(page, 'inbox-list-390px');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${c.base}/console/#/inbox/${kim}`);
    await page.locator('h2 .badge', { hasText: 'opted out' }).waitFor();
    const note = await page.locator('[data-test=opted-out-note]').textContent();
    assert.match(note ?? '', /opted out .*not sent until they text START/);
  });

  it('adds, changes and deletes saved replies', async () => {
    await page.goto(`${c.base}/console/#/inbox`);
    await page.locator('.saved-replies summary').click();
    await page.getByText('No saved replies yet.').waitFor();
    const add = async (name: string, text: string) => {
      await page.fill('input[name=replyName]', name);
      await page.fill('textarea[name=replyText]', text);
      await page.locator('button', { hasText: /^Save reply$/ }).click();
      await page.locator('.saved-replies td', { hasText: name }).waitFor();
    };
    await add('Opening hours', 'We are open 9 to 5.');
    await add('Directions', 'Find us at 1 Main St.');
    await page.locator('button[aria-label="Edit Opening hours"]').click();
    assert.equal(await page.inputValue('textarea[name=replyText]'), 'We are open 9 to 5.');
    await page.fill('textarea[name=replyText]', 'Hi {{{firstName}}}, we are open 9 to 6.');
    await page.locator('button', { hasText: 'Save changes' }).click();
    await page.locator('.saved-replies td', { hasText: 'we are open 9 to 6.' }).waitFor();
    await page.locator('button[aria-label="Delete Directions"]').click();
    await page.locator('.flash-info', { hasText: 'Saved reply deleted.' }).waitFor();
    const saved = await get('/savedreplies');
    assert.deepEqual(
      saved.map((r: { name: string; text: string }) => [r.name, r.text]),
      [['Opening hours', 'Hi {{{firstName}}}, we are open 9 to 6.']],
    );
    await screenshot(page, 'inbox-saved-replies-1280px');
  });

  it('inserts a saved reply into the reply box and sends it', async () => {
    await page.goto(`${c.base}/console/#/inbox/${lee}`);
    await page.locator('.bubble.in', { hasText: 'When are you open?' }).waitFor();
    await page.fill('textarea[name=reply]', 'Thanks! ');
    await page.locator('textarea[name=reply]').press('End');
    await page.selectOption('select[name=savedReply]', { label: 'Opening hours' });
    assert.equal(
      await page.inputValue('textarea[name=reply]'),
      'Thanks! Hi {{{firstName}}}, we are open 9 to 6.',
    );
    assert.equal(await page.inputValue('select[name=savedReply]'), '', 'the menu is back to its prompt');
    await page.locator('button', { hasText: 'Send reply' }).click();
    await page.locator('.bubble.out', { hasText: 'Thanks! Hi Lee, we are open 9 to 6.' }).waitFor();
  });

  it('assigns a conversation to a person, filters the inbox by assignee, unassigns', async () => {
    await page.goto(`${c.base}/console/#/inbox/${lee}`);
    await page.selectOption('select[name=assignee]', { label: 'Mia Wong' });
    await page.locator('.flash-info', { hasText: /Assigned to .*Mia Wong/ }).waitFor();
    assert.equal((await get(`/conversations/${lee}`)).assignee.id, miaId);
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /\bnull\b|undefined/);
    await screenshot(page, 'inbox-thread-1280px');

    await page.goto(`${c.base}/console/#/inbox?show=all`);
    const leeRow = page.locator('tr', { has: page.locator(`a[href="#/inbox/${lee}"]`) });
    await leeRow.locator('td[data-label="Assigned to"]', { hasText: 'Mia Wong' }).waitFor();
    await page.selectOption('select[name=assignee]', { label: 'Mia Wong' });
    await page.waitForURL(/assignee=/);
    await leeRow.waitFor();
    assert.equal(await page.locator(`a[href="#/inbox/${kim}"]`).count(), 0, "Kim's is nobody's");
    await page.selectOption('select[name=assignee]', { label: 'Nobody (unassigned)' });
    await page.locator(`a[href="#/inbox/${kim}"]`).waitFor();
    assert.equal(await page.locator(`a[href="#/inbox/${lee}"]`).count(), 0);
    await page.selectOption('select[name=assignee]', { label: 'Me' });
    await page.getByText('No conversations here.').waitFor();

    await page.goto(`${c.base}/console/#/inbox/${lee}`);
    // The thread's own page: the list before it has a select of the same name (its filter).
    await page.locator('textarea[name=reply]').waitFor();
    await page.selectOption('select[name=assignee]', { label: 'Nobody (unassigned)' });
    await page.locator('.flash-info', { hasText: 'Unassigned.' }).waitFor();
    assert.equal((await get(`/conversations/${lee}`)).assignee, undefined);
  });

  it('marks a read conversation unread again', async () => {
    await page.goto(`${c.base}/console/#/inbox/${lee}`);
    await page.locator('.bubble.in', { hasText: 'When are you open?' }).waitFor();
    await eventually(async () => (await get(`/conversations/${lee}`)).unread.length === 0);
    await page.locator('button', { hasText: 'Mark unread' }).click();
    await page.locator('h2', { hasText: 'Inbox' }).waitFor();
    await page.locator('.flash-info', { hasText: 'is unread again' }).waitFor();
    await page.locator(`a.unread[href="#/inbox/${lee}"] .count`, { hasText: '1' }).waitFor();
    assert.equal((await get(`/conversations/${lee}`)).unread.length, 1);
  });

  it('lets a Viewer read the inbox, the saved replies and a thread, offering no change', async () => {
    await ensureUser(
      svc.db,
      a.accountId,
      {
        email: 'vic@example.com',
        password: CONSOLE_PASSWORD,
        role: 'Viewer',
        hashCost: svc.config.secretHashCost,
      },
      {},
    );
    await page.locator('button', { hasText: 'Sign out' }).click();
    await page.locator('input[name=email]').waitFor();
    await page.fill('input[name=email]', 'vic@example.com');
    await page.fill('input[name=password]', CONSOLE_PASSWORD);
    await page.click('button[type=submit]');
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
    await page.goto(`${c.base}/console/#/inbox`);
    await page.locator(`a[href="#/inbox/${kim}"]`).waitFor();
    await page.locator('.saved-replies summary').click();
    await page.locator('.saved-replies td', { hasText: 'Opening hours' }).waitFor();
    assert.equal(await page.locator('input[name=replyName]').count(), 0, 'no form to add one');
    assert.equal(await page.locator('.saved-replies button', { hasText: 'Delete' }).count(), 0);
    await page.goto(`${c.base}/console/#/inbox/${lee}`);
    await page.locator('.bubble.in', { hasText: 'When are you open?' }).waitFor();
    assert.equal(await page.locator('button', { hasText: 'Mark unread' }).count(), 0);
    assert.equal(await page.locator('select[name=assignee]').count(), 0);
    assert.equal(await page.locator('textarea[name=reply]').isVisible(), false);
    await page.getByText('your role in this account cannot reply').waitFor();
    assert.equal(await page.locator('.flash-error').count(), 0);
    assert.equal(
      (await get(`/conversations/${lee}`)).unread.length,
      1,
      'still unread: a Viewer cannot read it',
    );
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
