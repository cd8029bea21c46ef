/**
 * Accessibility of the console: axe-core finds no serious or critical violation on the sign-in
 * page, an invitation page, and every route of console/js/site-map.js (read from its ROUTES list, with a
 * record made first for every detail page, so none is skipped and tables are not empty). This
 * file checks the first half of the routes; accessibility-routes.test.ts the other half, and
 * accessibility-narrow*.test.ts every route at 360 px. Each page visited is saved as a full-page
 * screenshot under test/console/screenshots/, named by route and width (screenshot.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NAV, ROUTES, routesHalf, startAccessibility } from './accessibility-support.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { skipWithoutChromium } from './browser.ts';
import { routeScreenshot } from './screenshot.ts';

describe('the console’s accessibility (axe-core)', { skip: skipWithoutChromium }, () => {
  let t: Awaited<ReturnType<typeof startAccessibility>>;
  const page = () => t.page;

  before(async () => {
    t = await startAccessibility();
  });
  after(() => t?.c.close());

  it('reads the console’s routes from site-map.js', () => {
    assert.ok(ROUTES.length >= 20, `ROUTES: ${ROUTES.join(', ')}`);
    assert.ok(ROUTES.includes('/overview') && ROUTES.includes('/contacts/:id'));
    assert.ok(NAV.length >= 10, `NAV: ${NAV.join(', ')}`);
    assert.deepEqual(
      NAV.filter((p) => !ROUTES.includes(p)),
      [],
    );
  });

  it('the sign-in page has no serious or critical violation', async () => {
    await page().goto(`${t.c.base}/console/`);
    await page().locator('input[name=email]').waitFor();
    await routeScreenshot(page(), '/sign-in', 1280);
    await t.check('sign-in');
    await page().setViewportSize({ width: 360, height: 740 });
    try {
      await routeScreenshot(page(), '/sign-in', 360);
      assert.equal(await t.overflow(), null, 'the sign-in page at 360 px');
      await t.check('sign-in at 360 px');
    } finally {
      await page().setViewportSize({ width: 1280, height: 720 });
    }
  });

  it('the check reports a violation when the page has one (an input without a label)', async () => {
    await page().evaluate(() => {
      const input = document.createElement('input');
      input.id = 'unlabelled';
      document.body.append(input);
    });
    const found = await axeViolations(page());
    await page().evaluate(() => document.getElementById('unlabelled')?.remove());
    assert.deepEqual(
      found.map((v) => [v.id, v.impact, v.targets]),
      [['label', 'critical', ['#unlabelled']]],
    );
  });

  it('an invitation page has no serious or critical violation', async () => {
    await page().goto(`${t.c.base}/console/#/accept/${t.inviteToken}`);
    await page().locator('h1', { hasText: 'Join Sparrow' }).waitFor();
    await routeScreenshot(page(), '/accept/:token', 1280);
    await t.check('invitation');
    await page().setViewportSize({ width: 360, height: 740 });
    try {
      await routeScreenshot(page(), '/accept/:token', 360);
      assert.equal(await t.overflow(), null, 'the invitation page at 360 px');
      await t.check('invitation at 360 px');
    } finally {
      await page().setViewportSize({ width: 1280, height: 720 });
    }
  });

  it('signs in', async () => {
    await t.c.signIn(t.a);
    await page().locator('h2', { hasText: 'Overview' }).waitFor();
  });

  it('has a record to open for every detail route (none is skipped)', async () => {
    const missing: string[] = [];
    for (const route of ROUTES) if (!(await t.targetOf(route))) missing.push(route);
    assert.deepEqual(missing, []);
  });

  for (const route of routesHalf(1)) {
    it(`#${route} has no serious or critical violation`, async () => {
      const target = await t.targetOf(route);
      assert.ok(target, `no record to open for #${route}`);
      await page().goto(`${t.c.base}/console/#${target}`);
      await t.settle();
      await routeScreenshot(page(), route, 1280);
      await t.check(`#${target}`);
    });
  }

  it('further states of the pages (forms, filters, not found) have no serious or critical violation', async () => {
    const found: string[] = [];
    for (const target of t.further) {
      await page().goto(`${t.c.base}/console/#${target}`);
      await t.settle();
      await routeScreenshot(page(), target, 1280);
      const violations = await axeViolations(page());
      if (violations.length) found.push(describeViolations(`#${target}`, violations));
    }
    assert.deepEqual(found, []);
  });

  it('a page showing an error has no serious or critical violation', async () => {
    await page().goto(`${t.c.base}/console/#/contacts/new`);
    await t.settle();
    await page().fill('input[name=mobile]', '12');
    await page().locator('button', { hasText: 'Create contact' }).click();
    await page().locator('.flash-error').waitFor();
    await routeScreenshot(page(), '/contacts/new-error', 1280);
    await t.check('a contact form with an error');
  });
});
