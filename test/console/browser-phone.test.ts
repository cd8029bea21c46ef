/**
 * The console on a phone (390 × 844): every list is cards, nothing important in a sideways scroll
 * (the text, the status, the actions and "opted out" in view), the header's e-mail not broken
 * mid-word, chart labels legible and the last day's label whole.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { adminEmail, type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('the console at 390 × 844', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;
  const LONG = 'Our spring sale starts tomorrow at nine with twenty percent off everything in the shop';

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    const ours = body(await call(svc.api, 'GET', url('/phonenumbers'), { auth: a.auth })).data[0].number;
    for (const [firstName, mobile] of [
      ['Bartholomew', '+14155550401'],
      ['Stopper', '+14155550402'],
    ]) {
      const res = await call(svc.api, 'POST', url('/contacts'), {
        auth: a.auth,
        json: {
          firstName,
          lastName: 'Featherstonehaugh',
          email: `${firstName.toLowerCase()}@example.com`,
          mobile,
        },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550402', to: ours, text: 'STOP' },
    });
    assert.equal(stop.statusCode, 200, stop.body);
    const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550401', to: ours, text: LONG },
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    const sent = await call(svc.api, 'POST', url('/messages'), {
      auth: a.auth,
      json: { contacts: [{ mobile: { number: '+14155550401' } }], template: LONG },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    await eventually(async () => {
      const m = body(await call(svc.api, 'GET', url('/messages?limit=10'), { auth: a.auth })).data;
      return m.some((x: { status: string }) => x.status === 'delivered') || undefined;
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  /** Whatever is wider than the screen: the page, a table, or any element inside the content. */
  const overflow = (p: Page) =>
    p.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const wide: string[] = [];
      if (document.documentElement.scrollWidth > width)
        wide.push(`page ${document.documentElement.scrollWidth}`);
      for (const t of document.querySelectorAll('table'))
        if (t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > width + 1)
          wide.push(`table ${t.scrollWidth} in ${t.clientWidth}`);
      return wide;
    });

  for (const [route, heading, visible] of [
    ['/contacts', 'Contacts', ['Bartholomew Featherstonehaugh', 'opted out']],
    ['/messages', 'Messages', [LONG, 'delivered']],
    ['/inbox', 'Inbox', [LONG]],
    ['/numbers', 'Numbers', []],
  ] as const) {
    it(`${route}: cards no wider than the screen, with ${visible.join(', ') || 'every column'} in view`, async () => {
      await page.goto(`${c.base}/console/#${route}`);
      await page.locator('main h2', { hasText: heading }).first().waitFor();
      await page.locator('table tbody tr').first().waitFor();
      await screenshot(page, `phone-${heading.toLowerCase()}-390`);
      assert.deepEqual(await overflow(page), []);
      for (const text of visible) {
        const el = page.locator('table td', { hasText: text }).first();
        assert.equal(await el.isVisible(), true, text);
        const box = await el.boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= 391, `${text}: ${JSON.stringify(box)}`);
      }
      // Each cell says what it is (its column's heading) in the card.
      const label = await page
        .locator('table td[data-label]')
        .first()
        .evaluate((td) => getComputedStyle(td, '::before').content);
      assert.notEqual(label, 'none');
    });
  }

  it('the header does not break the e-mail mid-word', async () => {
    const who = page.locator('.top .who');
    const lines = await who.evaluate((el) => {
      const r = document.createRange();
      r.selectNodeContents(el);
      return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
    });
    assert.equal(lines, 1);
    assert.match((await who.getAttribute('title')) ?? '', new RegExp(adminEmail(a).replace(/[.]/g, '\\.')));
  });

  it('chart labels are legible (at least 11 px) and the last day is whole', async () => {
    await page.goto(`${c.base}/console/#/overview`);
    const axis = page.locator('.chart-axis').first();
    await axis.waitFor();
    const sizes = await axis.evaluate((el) =>
      [...el.children].map((s) => parseFloat(getComputedStyle(s).fontSize)),
    );
    assert.ok(
      sizes.every((s) => s >= 11),
      JSON.stringify(sizes),
    );
    const last = (await axis.locator('span').last().textContent()) ?? '';
    assert.match(last, /^\d{4}-\d{2}-\d{2}$/);
    await screenshot(page, 'phone-overview-390');
  });

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
