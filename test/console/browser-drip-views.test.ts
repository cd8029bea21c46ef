/**
 * A drip campaign's page (issue 27): a drip nobody has entered (never activated) is shown without
 * asking for an execution that cannot exist (it logged a 404 on every view).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('a drip campaign’s page', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount();
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  it('shows a never-activated drip without a 404 (no request for an execution it cannot have)', async () => {
    const list = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/lists`, {
      auth: a.auth,
      json: { name: 'Newsletter' },
    });
    const listId = (body(list).data[0] ?? body(list).data).id;
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/dripcampaigns`, {
      auth: a.auth,
      json: {
        name: 'Welcome series',
        trigger: { type: 'list', listId },
        messages: [{ message: 'Welcome!' }],
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const dripId = (body(res).data[0] ?? body(res).data).id;
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    for (let i = 0; i < 2; i++) {
      await page.goto(`${c.base}/console/#/drips/${dripId}?v=${i}`);
      await page.locator('h2', { hasText: 'Welcome series' }).waitFor();
    }
    await page.waitForLoadState('networkidle');
    assert.deepEqual(failed, []);
    assert.deepEqual(c.problems, []);
  });
});
