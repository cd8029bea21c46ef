/**
 * The console's drip campaigns, lead forms and tracked links pages in a real browser: each page's
 * main flow end to end (create, see it listed, one action), names shown as text, no console errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the web console’s automation pages in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const v1 = (path: string) => `/v1/accounts/${a.accountId}${path}`;
  const idInHash = () => decodeURIComponent(new URL(page.url()).hash.slice(2).split('?')[0].split('/')[1]);

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount();
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('creates a drip campaign of two messages, activates it and shows an execution', async () => {
    await page.click('a[href="#/drips"]');
    await page.locator('h2', { hasText: 'Drip campaigns' }).waitFor();
    await page.locator('p.empty', { hasText: 'No drip campaigns yet' }).waitFor();
    await page.fill('input[name=name]', 'Welcome <b>series</b>');
    await page.fill('textarea[aria-label="Message 1: text"]', 'Hello {{{firstName}}}');
    await page.locator('button', { hasText: 'Add message' }).click();
    await page.fill('textarea[aria-label="Message 2: text"]', 'A day later');
    assert.equal(await page.inputValue('input[aria-label="Message 2: delay in days"]'), '1');
    await page.fill('input[aria-label="Message 2: delay in hours"]', '2');
    await page.locator('button', { hasText: 'Create drip campaign' }).click();

    await page.locator('.flash-info', { hasText: 'Drip campaign created' }).waitFor();
    await page.locator('h2', { hasText: 'Welcome <b>series</b>' }).waitFor();
    assert.equal(await page.locator('h2 b').count(), 0);
    await page.locator('p.empty', { hasText: 'No executions yet' }).waitFor();
    const id = idInHash();
    const drip = body(await call(svc.api, 'GET', v1(`/dripcampaigns/${id}`), { auth: a.auth })).data;
    assert.equal(drip.active, false);
    assert.equal(drip.trigger.type, 'contact-created');
    assert.deepEqual(
      drip.messages.map((m: { message: string; delay: unknown }) => [m.message, m.delay]),
      [
        ['Hello {{{firstName}}}', { days: 0, hours: 0, minutes: 0 }],
        ['A day later', { days: 1, hours: 2, minutes: 0 }],
      ],
    );

    await page.locator('button', { hasText: 'Activate' }).click();
    await page.locator('.flash-info', { hasText: 'Drip campaign activated' }).waitFor();
    await page.locator('button', { hasText: 'Deactivate' }).waitFor();
    assert.equal(
      body(await call(svc.api, 'GET', v1(`/dripcampaigns/${id}`), { auth: a.auth })).data.active,
      true,
    );

    // A new contact enters the drip (the workers run): its execution shows on the drip's page.
    const created = await call(svc.api, 'POST', v1('/contacts'), {
      auth: a.auth,
      json: { firstName: 'Dana', lastName: '\u202Eevil', mobile: '+12025550181' },
    });
    assert.equal(created.statusCode, 201, created.body);
    for (let i = 0; i < 200; i++) {
      const x = await call(svc.api, 'GET', v1(`/dripcampaigns/${id}/executions`), { auth: a.auth });
      if (x.statusCode === 200) break;
      await sleep(100);
    }
    await page.reload();
    const details = page.locator('dl.details');
    await details.waitFor();
    assert.match((await details.textContent()) ?? '', /Dana/);
    // The contact's name is isolated: the override character cannot reorder the text around it.
    assert.match((await details.locator('a').textContent()) ?? '', /^\u2068Dana \u202Eevil\u2069$/);

    await page.click('a[href="#/drips"]');
    const row = page.locator('tr', { hasText: 'Welcome <b>series</b>' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /A contact is created.*2.*active.*Entered 1/);

    // Edit: the second message removed, the first reworded (it keeps its id, so its stats).
    await row.locator('a').click();
    await page.locator('a', { hasText: 'Edit' }).click();
    await page.locator('h3', { hasText: 'Edit “Welcome <b>series</b>”' }).waitFor();
    await page.locator('button', { hasText: 'Remove message 2' }).click();
    assert.ok(await page.locator('button', { hasText: 'Remove message 1' }).isDisabled());
    await page.fill('textarea[aria-label="Message 1: text"]', 'Hi again');
    await page.locator('button', { hasText: 'Save drip campaign' }).click();
    await page.locator('.flash-info', { hasText: 'Drip campaign saved' }).waitFor();
    const edited = body(await call(svc.api, 'GET', v1(`/dripcampaigns/${id}`), { auth: a.auth })).data;
    assert.deepEqual(
      edited.messages.map((m: { id: string; message: string }) => [m.id, m.message]),
      [[drip.messages[0].id, 'Hi again']],
    );

    await page.locator('button', { hasText: 'Delete' }).click();
    await page.locator('.flash-info', { hasText: 'Drip campaign deleted' }).waitFor();
    await page.locator('p.empty', { hasText: 'No drip campaigns yet' }).waitFor();
    assert.equal((await call(svc.api, 'GET', v1(`/dripcampaigns/${id}`), { auth: a.auth })).statusCode, 404);
    assert.equal(await page.locator('.flash-error').count(), 0);
    assert.deepEqual(c.problems, []);
  });

  it('creates a lead form from a template, activates it, and shows its URL, analytics and a conversion', async () => {
    await page.click('a[href="#/forms"]');
    await page.locator('h2', { hasText: 'Lead forms' }).waitFor();
    await page.fill('input[aria-label="Search form templates"]', 'newsletter');
    await page.locator('[data-test=form-templates] button', { hasText: 'Search' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-template]').length === 1);
    const card = page.locator('[data-template="newsletter-signup"]');
    await card.locator('input[name=name]').fill('News <i>letter</i>');
    await card.locator('button', { hasText: 'Use this template' }).click();

    await page.locator('.flash-info', { hasText: 'Lead form created' }).waitFor();
    await page.locator('h2', { hasText: 'News <i>letter</i>' }).waitFor();
    assert.equal(await page.locator('h2 i').count(), 0);
    const id = idInHash();
    const form = body(await call(svc.api, 'GET', v1(`/forms/${id}`), { auth: a.auth })).data;
    assert.equal(form.templateId, 'newsletter-signup');
    assert.equal(form.active, undefined);
    assert.equal(await page.inputValue('input[aria-label="Hosted page URL"]'), form.url);
    assert.match(
      await page.inputValue('textarea[aria-label="Embed snippet"]'),
      /^<iframe src="[^"]+" title="News &#60;i&#62;letter&#60;\/i&#62;"/,
    );

    await page.locator('button', { hasText: 'Activate' }).click();
    await page.locator('.flash-info', { hasText: 'Lead form activated' }).waitFor();
    await page.locator('button', { hasText: 'Deactivate' }).waitFor();
    assert.ok(body(await call(svc.api, 'GET', v1(`/forms/${id}`), { auth: a.auth })).data.active);

    // A visitor views and submits the hosted page: the analytics and conversions show it.
    assert.equal((await call(svc.externals, 'GET', `/f/${id}`)).statusCode, 200);
    const sent = await call(svc.externals, 'POST', `/f/${id}`, {
      json: { firstName: 'Ria', mobile: '+12025550182', _consent: 'on' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    await page.reload();
    const figures = page.locator('[data-test=form-analytics]');
    await figures.waitFor();
    assert.match((await figures.textContent()) ?? '', /Impressions1Conversions1Conversion rate100\.0 %/);
    assert.equal(await page.locator('figure svg.chart').count(), 1);
    const conversion = page.locator('tr', { hasText: '+12025550182' });
    await conversion.waitFor();
    assert.match((await conversion.textContent()) ?? '', /Ria/);

    await page.click('a[href="#/forms"]');
    const row = page.locator('tr', { hasText: 'News <i>letter</i>' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /active.*11/);

    // A blank form whose fields are made in a form, not typed as `name | label | type`; consent asked.
    await page.fill('form.panel input[name=name]', 'Blank');
    const rows = page.locator('.form-field-row');
    await rows.nth(1).locator('button', { hasText: 'Remove' }).click();
    await page.locator('button', { hasText: 'Add a field' }).click();
    await rows.nth(1).locator('input[name=fieldLabel]').fill('Favourite colour');
    await rows.nth(1).locator('select[name=fieldType]').selectOption({ label: 'Choice from a list' });
    await rows.nth(1).locator('input[name=fieldOptions]').fill('red, green');
    assert.equal(await page.locator('textarea[name=fields]').count(), 0);
    await page.locator('button', { hasText: 'Create lead form' }).click();
    await page.locator('h2', { hasText: 'Blank' }).waitFor();
    await page.locator('td', { hasText: 'Favourite colour' }).waitFor();
    const blank = body(await call(svc.api, 'GET', v1(`/forms/${idInHash()}`), { auth: a.auth })).data;
    assert.deepEqual(blank.fields, [
      { name: 'mobile', label: 'Mobile number', type: 'tel', required: true },
      {
        name: 'favouriteColour',
        label: 'Favourite colour',
        type: 'select',
        required: false,
        options: ['red', 'green'],
      },
    ]);
    assert.match(blank.consentText, /^I agree to receive recurring marketing text messages/);
    assert.equal(await page.locator('.flash-error').count(), 0);
    assert.deepEqual(c.problems, []);
  });

  it('creates a tracked link, shows its short URL to copy, and its clicks per day', async () => {
    await page.click('a[href="#/links"]');
    await page.locator('h2', { hasText: 'Tracked links' }).waitFor();
    await page.locator('p.empty', { hasText: 'No tracked links yet' }).waitFor();
    await page.fill('input[name=name]', 'Spring <u>sale</u>');
    await page.fill('input[name=url]', 'https://example.com/sale?x=1');
    await page.locator('button', { hasText: 'Create link' }).click();

    const shortBox = page.locator('[data-test=created-link] input[aria-label="Short URL"]');
    await shortBox.waitFor();
    const links = body(await call(svc.api, 'GET', v1('/links'), { auth: a.auth })).data;
    assert.equal(links.length, 1);
    assert.equal(links[0].name, 'Spring <u>sale</u>');
    assert.equal(await shortBox.inputValue(), links[0].shortUrl);
    await page.locator('button[aria-label="Copy short url"]').click();
    await page.locator('.flash-info', { hasText: 'Short URL' }).waitFor();

    // One click on the short URL (the public listener), then the link's page.
    const click = await call(svc.externals, 'GET', `/l/${links[0].slug}`);
    assert.equal(click.statusCode, 302);
    assert.equal(click.headers.location, 'https://example.com/sale?x=1');
    await page.locator('[data-test=created-link] a', { hasText: 'clicks and sources' }).click();
    await page.locator('h2', { hasText: 'Spring <u>sale</u>' }).waitFor();
    assert.equal(await page.locator('h2 u').count(), 0);
    const direct = page.locator('tr', { hasText: 'Direct' });
    await direct.waitFor();
    assert.match((await direct.textContent()) ?? '', /\/l\/\w+1/);
    assert.equal(await page.locator('figure svg.chart').count(), 1);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(((await page.locator('tr', { hasText: today }).textContent()) ?? '').trim(), `${today}1`);

    await page.click('a[href="#/links"]');
    const row = page.locator('tr', { hasText: 'Spring <u>sale</u>' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /example\.com\/sale.*1/);
    await row.locator('a').click();
    await page.locator('button', { hasText: 'Delete link' }).click();
    await page.locator('.flash-info', { hasText: 'Link deleted' }).waitFor();
    await page.locator('p.empty', { hasText: 'No tracked links yet' }).waitFor();
    assert.equal((await call(svc.externals, 'GET', `/l/${links[0].slug}`)).statusCode, 404);
    assert.equal(await page.locator('.flash-error').count(), 0);
    assert.deepEqual(c.problems, []);
  });
});
