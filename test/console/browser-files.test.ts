/** The console's Files page in a browser: upload a file, see its link and expiry, send it as MMS. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { HTML, PNG } from '../support/sample-files.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

describe('the web console’s Files page in a browser', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sparrow-files-'));

  before(async () => {
    c = await startConsole({ dataDir });
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uploads a picture, shows its public link and expiry, and sends it as MMS from compose', async () => {
    await page.click('a[href="#/files"]');
    await page.locator('h2', { hasText: 'Files' }).waitFor();
    await page.setInputFiles('input[name=media]', { name: 'cat.png', mimeType: 'image/png', buffer: PNG });
    await page.locator('button', { hasText: 'Upload' }).click();
    await page.locator('.flash-info', { hasText: 'Uploaded. The link works until' }).waitFor();
    const link = (await page.locator('a.file-link').first().getAttribute('href')) ?? '';
    assert.ok(link.startsWith(`${svc.config.externalsUrl}/files/`), link);
    const row = (await page.locator('tr', { hasText: 'cat.png' }).textContent()) ?? '';
    assert.match(row, /image\/png/);
    const got = await svc.externals.inject({ method: 'GET', url: new URL(link).pathname });
    assert.deepEqual(got.rawPayload, PNG);

    await page.locator('tr', { hasText: 'cat.png' }).locator('a', { hasText: 'Send as MMS' }).click();
    await page.locator('.attached-media', { hasText: link }).waitFor();
    await page.check('input[name=mode][value=mobiles]');
    await page.fill('textarea[name=mobiles]', '+14155550177');
    await page.fill('textarea[name=text]', 'A picture for you');
    await page.locator('button', { hasText: 'Review and send' }).click();
    await page.locator('section.review button', { hasText: 'Send to 1 recipient' }).click();
    await page.locator('.flash-info', { hasText: 'Sent: 1 queued' }).waitFor();
    const sent = await eventually(async () => {
      const res = body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages`, { auth: a.auth }));
      return res.data.find((m: { message: string }) => m.message === 'A picture for you');
    });
    assert.deepEqual(
      sent.media.map((m: { url: string }) => m.url),
      [link],
    );
  });

  it('shows the refusal of a file that is not an accepted type', async () => {
    await page.click('a[href="#/files"]');
    await page.setInputFiles('input[name=media]', { name: 'x.png', mimeType: 'image/png', buffer: HTML });
    await page.locator('button', { hasText: 'Upload' }).click();
    await page.locator('.flash-error', { hasText: 'FILE-002' }).waitFor();
    assert.deepEqual(c.problems, []);
  });
});
