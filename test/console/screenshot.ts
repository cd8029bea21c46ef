/**
 * Screenshots of the console's pages, kept as CI artifacts under test/console/screenshots/ (not
 * committed: .gitignore): one full-page PNG per page a browser test shows, named by the test, and
 * one per page the accessibility walk visits, named by its route and width
 * (`page-contacts-id-1280px.png`: routeScreenshot).
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

/**
 * The name of a page of the accessibility walk: its route (or its hash path for a further state)
 * and width, as `page-<route>-<width>px` (`/contacts/:id` at 360 px → `page-contacts-id-360px`;
 * `/templates?edit=<uuid>` → `page-templates-edit-id-1280px`).
 */
export function routeScreenshotName(route: string, width: number): string {
  // A further state's hash path names its record by id: the name keeps the route's shape instead.
  const slug =
    route
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, 'id')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'root';
  return `page-${slug}-${width}px`;
}

/** Saves a full-page screenshot of the page the walk shows for `route` at `width` px. */
export function routeScreenshot(page: Page, route: string, width: number): Promise<string> {
  return screenshot(page, routeScreenshotName(route, width));
}
