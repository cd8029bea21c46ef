/**
 * The console's Meetings page in a real browser: create an event type, set its availability per
 * weekday, see a public booking in the agenda (isolated names), cancel it; duplicate and delete.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('the web console’s meetings in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const api = async (method: 'GET' | 'POST', path: string, json?: unknown) => {
    const res = await call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${res.body}`);
    return body(res).data;
  };
  const slug = `intro-${Date.now().toString(36)}`;

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

  it('creates an event type, sets its availability, shows a booking in the agenda and cancels it', async () => {
    await page.click('a[href="#/meetings"]');
    await page.locator('h2', { hasText: 'Meetings' }).waitFor();
    await page.locator('p.empty', { hasText: 'No meetings' }).waitFor();
    await page.fill('input[name=name]', 'Intro \u202Ecall');
    await page.fill('input[name=slug]', slug);
    await page.fill('input[name=durations]', '30, 60');
    await page.fill('input[name=timezone]', 'UTC');
    await page.locator('button', { hasText: 'Create event type' }).click();
    await page.locator('h2', { hasText: 'Event type' }).waitFor();
    const [ev] = await api('GET', '/meetingevents');
    assert.equal(ev.name, 'Intro \u202Ecall');
    assert.deepEqual(ev.durations, [30, 60]);
    assert.equal(await page.locator('h2 bdi').textContent(), 'Intro \u202Ecall');

    // Sunday hours, by keyboard-reachable controls with labels.
    await page.getByRole('button', { name: 'Add hours on Sunday' }).click();
    await page.getByLabel('Sunday opens').fill('10:00');
    await page.getByLabel('Sunday closes').fill('12:30');
    await page.getByLabel('Free minutes after each meeting').fill('15');
    await page.locator('button', { hasText: 'Save event type' }).click();
    await page.locator('.flash', { hasText: 'Event type saved.' }).waitFor();
    const saved = await api('GET', `/meetingevents/${ev.id}`);
    assert.deepEqual(saved.availability.sun, [
      { start: { hour: 10, minute: 0 }, end: { hour: 12, minute: 30 } },
    ]);
    assert.equal(saved.bufferMinutes, 15);

    // A public booking of the first free slot shows in the agenda, names isolated.
    const slots = body(await call(svc.externals, 'GET', `/v1/meetingevents/${slug}/slots?duration=30`));
    const start = (slots.data ?? slots).slots[0].start;
    const booked = await call(svc.externals, 'POST', `/v1/meetingevents/${slug}/book`, {
      json: { start, duration: 30, attendees: [{ firstName: 'Grace \u202Eevil', mobile: '+14155550260' }] },
    });
    assert.equal(booked.statusCode, 200, booked.body);
    const meetingId = body(booked).data.id;
    await page.click('a[href="#/meetings"]');
    const item = page.locator(`li[data-meeting="${meetingId}"]`);
    await item.waitFor();
    assert.ok((await item.locator('bdi').allTextContents()).some((t) => t.includes('Grace \u202Eevil')));
    await screenshot(page, 'meetings-agenda');
    await item.getByRole('button', { name: /^Cancel/ }).click();
    await page.locator('.flash', { hasText: 'Meeting cancelled.' }).waitFor();
    await page.locator(`li[data-meeting="${meetingId}"]`).waitFor({ state: 'detached' });
    assert.equal((await api('GET', `/meetings/${meetingId}`)).status, 'cancelled');
    assert.deepEqual(c.problems, []);
  });

  it('duplicates and deletes an event type; an invalid time zone shows the API’s error', async () => {
    const [ev] = await api('GET', '/meetingevents');
    await page.goto(`${c.base}/console/#/meetings/${ev.id}`);
    await page.locator('button', { hasText: 'Duplicate' }).click();
    await page.locator('.flash', { hasText: 'Event type duplicated.' }).waitFor();
    await page.waitForURL((u) => !u.hash.includes(ev.id));
    const copyId = new URL(page.url()).hash.split('/').at(-1) as string;
    const copy = await api('GET', `/meetingevents/${copyId}`);
    assert.equal(copy.slug, `${slug}-copy`);
    await page.fill('input[name=timezone]', 'Mars/Olympus');
    await page.locator('button', { hasText: 'Save event type' }).click();
    await page.locator('.flash-error', { hasText: 'MEET-004' }).waitFor();
    await screenshot(page, 'meetings-event-type');
    await page.locator('button', { hasText: 'Delete' }).click();
    await page.locator('.flash', { hasText: 'Event type deleted.' }).waitFor();
    const left = (await api('GET', '/meetingevents')).map((e: { id: string }) => e.id);
    assert.deepEqual(left, [ev.id]);
    // 360 px: no sideways scroll.
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      await page.goto(`${c.base}/console/#/meetings/${ev.id}`);
      await page.locator('h2', { hasText: 'Event type' }).waitFor();
      const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
      assert.equal(wide, false);
      await screenshot(page, 'meetings-event-type-360');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
    assert.deepEqual(c.problems, []);
  });
});
