/**
 * Issue 27's exports and reports in a real browser: the contacts list's Export (its search), the
 * messages export with a period (a reversed one refused on the page), the Reports page (a custom
 * period validated, spend per day in the account's currency, the campaigns compared with what came
 * after each send) and its exports, a campaign report's custom period and export; at 390 px the
 * charts' labels are at least 11 px and nothing scrolls sideways. Screenshots at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

/** The rows of a CSV file as objects by the header's names. */
function records(text: string): Record<string, string>[] {
  const [header, ...data] = parse(text.replace(/^\uFEFF/, '')) as string[][];
  return data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

describe('the web console’s exports and reports in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let campaignId: string;
  const api = async (method: 'GET' | 'POST', path: string, json?: unknown) => {
    const res = await call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${res.body}`);
    return body(res).data;
  };
  /** Clicks `selector` and answers the file it downloads: its name and text. */
  const download = async (click: () => Promise<void>) => {
    const [file] = await Promise.all([page.waitForEvent('download'), click()]);
    const path = await file.path();
    return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
  };

  before(async () => {
    c = await startConsole({ simulatorDeliveryDelayMs: 0 });
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    const list = await api('POST', '/lists', { name: 'Buyers' });
    const ids: string[] = [];
    for (const [i, name] of ['Zoë', 'Zoltan', '=HYPERLINK("x")', 'Ada'].entries())
      ids.push((await api('POST', '/contacts', { firstName: name, mobile: `+1415555031${i}` }))[0].id);
    await api('POST', `/lists/${list.id}/contacts`, { contactIds: ids });
    const groups = await api('GET', '/groups');
    const { campaign } = await api('POST', '/quickcampaigns', {
      name: 'Autumn sale',
      groupId: groups.find((g: { isDefault: boolean }) => g.isDefault).id,
      listId: list.id,
      message: { message: 'Autumn sale today' },
    });
    campaignId = campaign.id;
    await eventually(async () => {
      const ms = await api('GET', `/messages?campaignId=${campaignId}`);
      return ms.length === 4 && ms.every((m: { status: string }) => m.status === 'delivered');
    });
    const { rows } = await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' LIMIT 1`,
      [a.accountId],
    );
    await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550310', to: rows[0].number, text: 'Count me in' },
    });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('exports the contacts the search shows, formulas made inert', async () => {
    await page.goto(`${c.base}/console/#/contacts?q=zo`);
    await page.locator('td', { hasText: 'Zoltan' }).waitFor();
    const file = await download(() => page.getByRole('button', { name: 'Export matches (CSV)' }).click());
    assert.match(file.name, /^contacts-\d{4}-\d\d-\d\d\.csv$/);
    assert.deepEqual(
      records(file.text)
        .map((r) => r.firstName)
        .sort(),
      ['Zoltan', 'Zoë'],
    );
    await page.goto(`${c.base}/console/#/contacts`);
    await page.locator('td', { hasText: 'Ada' }).waitFor();
    const all = records(
      (await download(() => page.getByRole('button', { name: 'Export CSV' }).click())).text,
    );
    assert.equal(all.length, 4);
    assert.ok(all.some((r) => r.firstName === `'=HYPERLINK("x")`));
    await screenshot(page, 'exports-contacts');
  });

  it('exports the messages of a period, refusing a reversed one on the page', async () => {
    await page.goto(`${c.base}/console/#/messages`);
    await page.getByText('Export messages as CSV').click();
    await page.fill('input[name=exportFrom]', '2026-03-10');
    await page.fill('input[name=exportTo]', '2026-03-01');
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.getByRole('button', { name: 'Export CSV' }).click();
    await page
      .locator('[data-test=period-error]', { hasText: 'The start must be on or before the end.' })
      .waitFor();
    assert.equal(downloads, 0);
    const today = new Date();
    const day = (d: Date) => d.toISOString().slice(0, 10);
    await page.fill('input[name=exportFrom]', day(new Date(today.getTime() - 2 * 86_400_000)));
    await page.fill('input[name=exportTo]', day(new Date(today.getTime() + 86_400_000)));
    await page.selectOption('select[name=exportDirection]', 'outbound');
    const file = await download(() => page.getByRole('button', { name: 'Export CSV' }).click());
    assert.equal(await page.locator('[data-test=period-error]').count(), 0);
    const rows = records(file.text);
    assert.equal(rows.length, 4);
    assert.ok(rows.every((r) => r.direction === 'outbound' && r.text === 'Autumn sale today'));
  });

  it('shows the Reports page: spend per day, the campaigns compared, a custom period and its exports', async () => {
    await page.click('nav a[href="#/reports"]');
    await page.locator('h2', { hasText: 'Reports' }).waitFor();
    await page.locator('figcaption', { hasText: 'Spend per day (USD)' }).waitFor();
    const compared = await api('GET', '/reports/campaigns');
    assert.equal(compared.length, 1);
    const row = page.locator('tr', { has: page.locator(`a[href^="#/reports/campaigns/${campaignId}"]`) });
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    assert.ok(cells.includes('Autumn sale'), cells.join(' | '));
    assert.ok(cells.includes(String(compared[0].sent)));
    assert.ok(cells.includes(String(compared[0].replies)));
    assert.equal(compared[0].replies, 1);
    assert.ok(
      cells.some((t) => t.endsWith('USD') && Number.parseFloat(t) > 0),
      cells.join(' | '),
    );
    await screenshot(page, 'exports-reports-1280');

    // A custom period: reversed, then too long, refused on the page; then a valid one.
    await page.selectOption('select[name=days]', 'custom');
    await page.fill('input[name=from]', '2026-05-10');
    await page.fill('input[name=to]', '2026-05-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await page
      .locator('[data-test=period-error]', { hasText: 'The start must be on or before the end.' })
      .waitFor();
    await page.fill('input[name=from]', '2024-01-01');
    await page.fill('input[name=to]', '2026-05-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('[data-test=period-error]', { hasText: 'at most 366 days' }).waitFor();
    await page.fill('input[name=from]', '2026-05-01');
    await page.fill('input[name=to]', '2026-05-03');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/from=2026-05-01&to=2026-05-03/);
    await page.locator('p.empty', { hasText: 'No campaign sent in this period.' }).waitFor();
    const file = await download(() => page.getByRole('button', { name: 'Export report (CSV)' }).click());
    assert.deepEqual(
      records(file.text).map((d) => d.day),
      ['2026-05-01', '2026-05-02', '2026-05-03'],
    );
    // A period typed into the address is checked as well.
    await page.goto(`${c.base}/console/#/reports?from=2026-05-09&to=2026-05-01`);
    await page.locator('[data-test=period-error]').waitFor();
    assert.equal(await page.locator('.figures').count(), 0);

    await page.goto(`${c.base}/console/#/reports?days=30`);
    const comparison = await download(() =>
      page.getByRole('button', { name: 'Export campaigns (CSV)' }).click(),
    );
    const [only] = records(comparison.text);
    assert.equal(only.campaignId, campaignId);
    assert.equal(Number(only.replies), 1);
  });

  it('gives a campaign report a custom period and an export', async () => {
    await page.goto(`${c.base}/console/#/reports/campaigns/${campaignId}`);
    await page.locator('h2', { hasText: 'Campaign report' }).waitFor();
    await page.locator('figcaption', { hasText: 'Spend per day (USD)' }).waitFor();
    const file = await download(() => page.getByRole('button', { name: 'Export CSV' }).click());
    assert.match(file.name, /^campaign-report-/);
    assert.equal(
      records(file.text).reduce((n, d) => n + Number(d.sent), 0),
      4,
    );
    await page.selectOption('select[name=days]', 'custom');
    await page.fill('input[name=from]', '2026-01-01');
    await page.fill('input[name=to]', '2026-01-02');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/from=2026-01-01&to=2026-01-02/);
    await page.locator('.figure strong').first().waitFor();
    assert.equal(await page.locator('.figure strong').first().textContent(), '0');
  });

  it('at 390 px: chart labels of at least 11 px, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${c.base}/console/#/reports`);
      await page.locator('figcaption', { hasText: 'Spend per day' }).waitFor();
      const sizes = await page
        .locator('.chart-axis span, .legend span, figcaption')
        .evaluateAll((els) => els.map((el) => Number.parseFloat(getComputedStyle(el).fontSize)));
      assert.ok(sizes.length > 6);
      for (const px of sizes) assert.ok(px >= 11, `a chart label of ${px} px`);
      const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      assert.ok(widths[0] <= widths[1], `the page is ${widths[0]} px wide in a ${widths[1]} px window`);
      await screenshot(page, 'exports-reports-390');
      await page.goto(`${c.base}/console/#/messages`);
      await page.getByText('Export messages as CSV').click();
      await page.locator('input[name=exportFrom]').waitFor();
      const msgWidths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      assert.ok(msgWidths[0] <= msgWidths[1], `messages: ${msgWidths[0]} px in ${msgWidths[1]}`);
      const violations = await axeViolations(page);
      assert.deepEqual(violations.length ? [describeViolations('the messages export', violations)] : [], []);
      await screenshot(page, 'exports-messages-390');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    assert.deepEqual(c.problems, []);
  });
});
