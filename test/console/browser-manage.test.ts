/**
 * The console's management pages in a real browser: CSV import with its progress bar, lists, templates, campaigns
 * (a quick campaign to a list) and webhooks (subscribe, rotate, deliveries).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the web console’s management pages in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let receiver: Server;
  let receiverUrl: string;
  let received = 0;
  const api = (method: 'GET' | 'POST', path: string) =>
    call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth });

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    // A webhook destination that accepts every delivery.
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
    receiver?.close();
  });

  it('imports a CSV file of contacts with a progress bar that reaches completion, and lists the rows that failed', async () => {
    // Enough rows for more than one worker chunk (BULK_CHUNK_SIZE 1000).
    const filler = Array.from(
      { length: 1500 },
      (_, i) => `F${i},Filler,+1415556${String(i).padStart(4, '0')},none`,
    );
    const csv = [
      'firstName,lastName,mobile,plan',
      'Grace,Hopper,+14155550161,gold',
      'Alan,Turing,+14155550162,silver',
      'Bad,Row,12,none',
      ...filler,
    ].join('\n');
    await page.click('a[href="#/contacts"]');
    await page.setInputFiles('input[name=csv]', {
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${csv}\n`),
    });
    await page.locator('button', { hasText: 'Import' }).click();
    const bar = page.getByRole('progressbar', { name: /rows/ });
    await bar.waitFor();
    assert.equal(await bar.getAttribute('max'), '1503');
    await page
      .locator('label', { hasText: 'Import complete: 1503 of 1503 rows' })
      .waitFor({ timeout: 60_000 });
    assert.equal(await bar.evaluate((el) => (el as HTMLProgressElement).value), 1503);
    await page
      .locator('.flash-info', { hasText: '1503 row(s), 1502 created, 0 updated, 1 failed' })
      .waitFor();
    const bad = (await page.locator('.result tr', { hasText: 'CONT-001' }).textContent()) ?? '';
    assert.match(bad, /^4\s*3\s*12/, 'the failed row with its line (4), row (3) and mobile');
    const list = body(await api('GET', '/contacts?q=Hopper'));
    assert.equal(list.data[0].attributes.plan, 'gold');
    const imports = body(await api('GET', '/contacts/imports'));
    assert.equal(imports.data[0].fileName, 'people.csv');
    assert.equal(imports.data[0].status, 'completed');
  });

  it('creates a list, adds a contact to it, and launches a campaign to the list after its review', async () => {
    await page.click('a[href="#/lists"]');
    // The page's own form: the page before it may have a field of the same name.
    await page.locator('h3', { hasText: 'New list' }).waitFor();
    await page.fill('input[name=name]', 'Pioneers');
    await page.locator('button', { hasText: 'Create list' }).click();
    await page.locator('h2', { hasText: 'Pioneers' }).waitFor();
    await page.fill('input[placeholder="Find contacts to add"]', 'Hopper');
    await page.locator('button', { hasText: 'Find' }).click();
    await page
      .locator('.panel tr', { hasText: 'Grace Hopper' })
      .locator('button', { hasText: 'Add' })
      .click();
    await page.locator('.flash-info', { hasText: '\u2068Grace Hopper\u2069 added.' }).waitFor();
    await page.locator('td a', { hasText: 'Grace Hopper' }).waitFor();

    await page.click('a[href="#/campaigns"]');
    const form = page.locator('form.campaign-editor');
    await form.locator('input[name=name]').fill('Launch');
    await form.locator('select[name=listId]').selectOption({ label: 'Pioneers (1)' });
    await form.locator('textarea[name=message]').fill('Hello {{{firstName}}}, we launch today.');
    await form.locator('button', { hasText: 'Review and launch' }).click();
    await page.locator('section.review button', { hasText: 'Launch to 1 recipient' }).click();
    await page.locator('.flash-info', { hasText: '“Launch” is launched.' }).waitFor();
    await page.locator('tr', { hasText: 'Launch' }).locator('td', { hasText: 'Pioneers' }).waitFor();
    const sent = await eventually(async () => {
      const res = body(await api('GET', '/messages?status=delivered'));
      return res.data.find((m: { message: string }) => m.message === 'Hello Grace, we launch today.');
    });
    assert.ok(sent.campaignId);
  });

  it('saves a template, edits it, and offers it in compose', async () => {
    await page.click('a[href="#/templates"]');
    // The page's own form: the campaign editor before it has a field named `name` too.
    await page.locator('h3', { hasText: 'New template' }).waitFor();
    await page.fill('input[name=name]', 'Reminder');
    await page.fill('textarea[name=template]', 'See you soon, {{{firstName}}}!');
    await page.locator('button', { hasText: 'Create template' }).click();
    await page.locator('.flash-info', { hasText: 'Template created.' }).waitFor();
    const row = page.locator('tr', { hasText: 'Reminder' });
    assert.match((await row.textContent()) ?? '', /GSM-7 · 1 segment\(s\)firstName/);
    await row.locator('a', { hasText: 'Reminder' }).click();
    await page.locator('h3', { hasText: 'Edit “Reminder”' }).waitFor();
    await page.fill('textarea[name=template]', 'See you soon, {{{firstName}}} 👋');
    await page.locator('button', { hasText: 'Save template' }).click();
    await page.locator('.flash-info', { hasText: 'Template saved.' }).waitFor();
    assert.match((await page.locator('tr', { hasText: 'Reminder' }).textContent()) ?? '', /UCS-2/);

    await page.click('a[href="#/compose"]');
    await page.selectOption('select[name=template]', { label: 'Reminder' });
    assert.equal(await page.inputValue('textarea[name=text]'), 'See you soon, {{{firstName}}} 👋');
  });

  it('subscribes a webhook showing its secret once, rotates the secret and lists deliveries', async () => {
    await page.click('a[href="#/webhooks"]');
    await page.locator('h3', { hasText: 'Subscribe' }).waitFor();
    await page.fill('input[name=url]', receiverUrl);
    await page.locator('button', { hasText: 'Subscribe' }).click();
    const first = (await page.locator('.flash-info code.secret').textContent()) ?? '';
    assert.match(first, /^whsec_/);
    const row = page.locator('tr', { hasText: receiverUrl });
    await row.locator('button', { hasText: 'Rotate secret' }).click();
    await page.locator('.flash-info', { hasText: 'New secret' }).waitFor();
    const second = (await page.locator('.flash-info code.secret').textContent()) ?? '';
    assert.match(second, /^whsec_/);
    assert.notEqual(second, first);

    // An event to deliver: a new contact.
    await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { firstName: 'Katherine', mobile: '+14155550163' },
    });
    await eventually(async () => received > 0);
    await row.locator('a').click();
    await page.locator('h2', { hasText: 'Deliveries' }).waitFor();
    await eventually(async () => {
      await page.reload();
      return (
        (await page
          .locator('tr', { hasText: 'contact-created' })
          .locator('.badge', { hasText: 'succeeded' })
          .count()) > 0
      );
    });
  });

  it('shows every page without a script error or CSP violation', async () => {
    for (const path of [
      'overview',
      'contacts',
      'lists',
      'compose',
      'messages',
      'inbox',
      'templates',
      'campaigns',
      'webhooks',
    ]) {
      await page.click(`a[href="#/${path}"]`);
      await page.locator('nav a.active', { hasText: new RegExp(`^${path}$`, 'i') }).waitFor();
      await page.locator('.view h2').first().waitFor();
      assert.equal(await page.locator('.flash-error').count(), 0, path);
    }
    assert.deepEqual(c.problems, []);
  });
});
