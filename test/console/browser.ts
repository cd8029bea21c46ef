/**
 * Support for the browser tests: the service on a real listener with its workers, and Debian's
 * Chromium driven by playwright-core with a fresh profile. Tests skip, saying so, without Chromium.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Config } from '../../src/config.ts';
import { ensureUser } from '../../src/domain/users/members.ts';
import { startTestService, type TestAccount, type TestService } from '../helpers.ts';

/** The console password of every account's administrator in the browser tests. */
export const CONSOLE_PASSWORD = 'console test password';

/** The e-mail of an account's administrator in the browser tests. */
export function adminEmail(who: Pick<TestAccount, 'accountId'>): string {
  return `admin-${who.accountId}@example.com`;
}

/** Debian's Chromium (apt-get install -y chromium). */
export const CHROMIUM = '/usr/bin/chromium';

/** node:test's `skip` option: false with Chromium present, else the reason. */
export const skipWithoutChromium: false | string = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed (apt-get install -y chromium): the browser tests are skipped, not passed`;

/** A running service, its address, and a browser page on it. */
export interface ConsoleSession {
  svc: TestService;
  base: string;
  page: Page;
  /** Script errors and CSP violations the page reported. */
  problems: string[];
  /**
   * Makes the account's administrator (adminEmail, CONSOLE_PASSWORD) if absent, then fills and
   * submits the sign-in form with that e-mail and `password` (the right one by default).
   */
  signIn(who: Pick<TestAccount, 'accountId'>, password?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the service (workers on, real listener; `overrides` and `opts.env`, e.g. PROVIDERS, as for
 * startTestService) and a headless Chromium with a fresh profile.
 */
export async function startConsole(
  overrides: Partial<Config> = {},
  opts: { env?: Record<string, string> } = {},
): Promise<ConsoleSession> {
  const svc = await startTestService(overrides, { env: opts.env });
  svc.startWorkers();
  await svc.api.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(svc.api.server.address() as AddressInfo).port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sparrow-chromium-'));
  let browser: BrowserContext;
  try {
    browser = await chromium.launchPersistentContext(dataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  } catch (err) {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(20_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // A CSP violation is reported as a console error; so is any uncaught failure of ours. Failed
    // requests (an API 4xx the page shows) are expected and also logged: those are left out.
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(msg.text());
  });
  // confirm() dialogs (delete, rotate) are accepted.
  page.on('dialog', (d) => d.accept());
  return {
    svc,
    base,
    page,
    problems,
    async signIn(who, password = CONSOLE_PASSWORD) {
      const email = adminEmail(who);
      await ensureUser(
        svc.db,
        who.accountId,
        { email, password: CONSOLE_PASSWORD, role: 'Administrator', hashCost: svc.config.secretHashCost },
        {},
      );
      await page.goto(`${base}/console/`);
      await page.locator('input[name=email]').waitFor();
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', password);
      await page.click('button[type=submit]');
    },
    async close() {
      await browser.close();
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
