/**
 * The console's report pages in a real browser: a campaign's, its send's, a drip's and a
 * workflow's figures and charts, reached from their own pages, matching the API's report and the
 * messages the messages API shows; the period menu; a screenshot of each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('the web console’s report pages in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const api = async (method: 'GET' | 'POST', path: string, json?: unknown) => {
    const res = await call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${res.body}`);
    return body(res).data;
  };
  /** The figure cards of the report shown, as {label: value}. */
  const cards = async () =>
    Object.fromEntries(
      await page
        .locator('[data-test=report] .figure')
        .evaluateAll((els) =>
          els.map((el) => [
            el.querySelector('.figure-label')?.textContent ?? '',
            el.querySelector('strong')?.textContent ?? '',
          ]),
        ),
    );

  before(async () => {
    c = await startConsole({ simulatorDeliveryDelayMs: 0 });
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  it('shows a campaign’s and its send’s figures from the campaigns and job pages', async () => {
    const list = await api('POST', '/lists', { name: 'Readers' });
    const ids: string[] = [];
    for (const [i, name] of ['Ada', '\u202Eevil'].entries())
      ids.push((await api('POST', '/contacts', { firstName: name, mobile: `+1415555021${i}` }))[0].id);
    await api('POST', `/lists/${list.id}/contacts`, { contactIds: ids });
    const groups = await api('GET', '/groups');
    const { campaign, job } = await api('POST', '/quickcampaigns', {
      name: 'Spring \u202Esale',
      groupId: groups.find((g: { isDefault: boolean }) => g.isDefault).id,
      listId: list.id,
      message: { message: 'Spring sale today' },
    });
    const shown = await eventually(async () => {
      const ms = await api('GET', `/messages?campaignId=${campaign.id}`);
      return ms.length === 2 && ms.every((m: { status: string }) => m.status === 'delivered')
        ? ms
        : undefined;
    });

    await page.click('a[href="#/campaigns"]');
    await page.locator(`a[href="#/reports/campaigns/${campaign.id}"]`, { hasText: 'Report' }).click();
    await page.locator('h2', { hasText: 'Campaign report' }).waitFor();
    // The name as text, isolated for direction.
    assert.equal(await page.locator('bdi[data-test=report-name]').textContent(), 'Spring \u202Esale');
    await page.locator('[data-test=report] .figure').first().waitFor();
    const fromApi = await api('GET', `/reports/campaigns/${campaign.id}`);
    const shownCards = await cards();
    assert.equal(shownCards.Sent, String(shown.length));
    assert.equal(shownCards.Delivered, String(fromApi.totals.delivered));
    assert.equal(shownCards.Failed, '0');
    // Messages, replies and spend per day.
    assert.equal(await page.locator('figure svg.chart').count(), 3);
    await page.locator('td', { hasText: fromApi.days.at(-1).day }).waitFor();
    await screenshot(page, 'report-campaign');

    // The period menu: seven days.
    await page.selectOption('select[name=days]', '7');
    await page.waitForURL(/days=7/);
    await page.locator('[data-test=report][data-days="7"]').waitFor();
    assert.equal((await cards()).Sent, '2');

    await page.goto(`${c.base}/console/#/jobs/${job.id}`);
    await page.locator(`a[href="#/reports/jobs/${job.id}"]`).click();
    await page.locator('h2', { hasText: 'Send report' }).waitFor();
    await page.locator('[data-test=report] .figure').first().waitFor();
    assert.equal((await cards()).Sent, '2');
    await page.locator('a', { hasText: 'Its messages' }).click();
    await page.waitForURL(new RegExp(`jobId=${job.id}`));
    await screenshot(page, 'report-job-messages');
    assert.deepEqual(c.problems, []);
  });

  it('shows a drip’s and a workflow’s figures from their pages', async () => {
    const drip = await api('POST', '/dripcampaigns', {
      name: 'Welcome',
      trigger: { type: 'contact-created', delay: {} },
      messages: [{ message: 'Welcome aboard', delay: {} }],
      activate: true,
    });
    const flow = await api('POST', '/workflows', {
      name: 'Greeting',
      versions: [
        {
          name: 'v1',
          activate: true,
          definition: {
            nodes: [
              { id: 'start', type: { id: 'trigger.manual' } },
              { id: 'send', type: { id: 'action.send-message' }, config: { message: 'Hello' } },
              { id: 'end', type: { id: 'action.end' } },
            ],
            edges: [
              { id: 'e1', source: 'start', target: 'send' },
              { id: 'e2', source: 'send', target: 'end' },
            ],
          },
        },
      ],
    });
    const [contact] = await api('POST', '/contacts', { firstName: 'Cleo', mobile: '+14155550230' });
    await api('POST', `/workflows/${flow.id}/enrollments`, { contactId: contact.id });
    await eventually(async () => {
      const ms = await api('GET', `/messages?contactId=${contact.id}`);
      return ms.length === 2 && ms.every((m: { status: string }) => m.status === 'delivered');
    });
    await eventually(async () => (await api('GET', `/reports/workflows/${flow.id}`)).totals.delivered === 1);
    await eventually(
      async () => (await api('GET', `/reports/dripcampaigns/${drip.id}`)).totals.delivered === 1,
    );

    await page.goto(`${c.base}/console/#/drips/${drip.id}`);
    await page.locator(`a[href="#/reports/drips/${drip.id}"]`).click();
    await page.locator('h2', { hasText: 'Drip campaign report' }).waitFor();
    await page.locator('[data-test=report] .figure').first().waitFor();
    assert.equal((await cards()).Sent, '1');
    assert.equal((await cards()).Delivered, '1');
    await screenshot(page, 'report-drip');

    await page.goto(`${c.base}/console/#/workflows/${flow.id}`);
    await page.locator(`a[href="#/reports/workflows/${flow.id}"]`).click();
    await page.locator('h2', { hasText: 'Workflow report' }).waitFor();
    await page.locator('[data-test=report] .figure').first().waitFor();
    assert.equal((await cards()).Sent, '1');
    await screenshot(page, 'report-workflow');

    // Keyboard: the period menu is reachable and labelled.
    assert.equal(await page.getByLabel('Period').count(), 1);
    // At 360 px the report does not scroll sideways.
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
      assert.equal(wide, false);
      await screenshot(page, 'report-workflow-360');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
    // Another account's or an unknown record: the API's 404 is shown, nothing else.
    await page.goto(`${c.base}/console/#/reports/workflows/01937c1e-0000-7000-8000-00000000abcd`);
    await page.locator('.flash-error', { hasText: 'WF-001' }).waitFor();
    assert.deepEqual(c.problems, []);
  });
});
