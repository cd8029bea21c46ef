/**
 * Screenshots of the console's pages, kept as CI artifacts under test/console/screenshots/ (not
 * committed: .gitignore): one full-page PNG per page a browser test shows, named by the test.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/** The folder the screenshots are written to. */
export const SCREENSHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

/** Saves a full-page screenshot of `page` as test/console/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name.replace(/[^A-Za-z0-9_-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
