/**
 * Issue 27: what did not fit its window or its box. The workflow editor of a wide workflow within a
 * 1280 × 800 window (it was 1,366 px wide: the graph's width widened the whole page) and usable at
 * 390 px (the graph scrolls in its box to the node chosen in the list); template cards whose text
 * stays inside them (a long path or address in a description once ran out of its card); the
 * charts' axis labels whole and at least 11 px at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

/** Whatever makes the page wider than its window. */
const pageOverflow = (page: Page) =>
  page.evaluate(() => {
    const root = document.documentElement;
    return root.scrollWidth > root.clientWidth ? `page ${root.scrollWidth} in ${root.clientWidth}` : null;
  });

describe('the console fits its window', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let workflowId: string;
  const url = (p: string) => `/v1/accounts/${a.accountId}${p}`;

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    // The widest template: seven steps in a row, its graph about 1,500 px wide.
    const res = await call(svc.api, 'POST', url('/workflows'), {
      auth: a.auth,
      json: { templateId: 'welcome-series', name: 'Welcome series' },
    });
    assert.equal(res.statusCode, 201, res.body);
    workflowId = body(res).data.id;
    await page.setViewportSize({ width: 1280, height: 800 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(() => c?.close());

  const openEditor = async () => {
    await page.goto(`${c.base}/console/#/workflows/${workflowId}/editor`);
    await page.locator('svg.workflow-graph g.node').first().waitFor();
  };
  /** The graph box's visible part and the graph's size. */
  const graphBox = () =>
    page.locator('.graph-wrap').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth };
    });

  it('the workflow editor of a wide workflow fits a 1280 × 800 window; the graph scrolls in its box', async () => {
    await openEditor();
    assert.equal(await pageOverflow(page), null);
    const box = await graphBox();
    assert.ok(box.right <= 1280, JSON.stringify(box));
    assert.ok(box.scrollWidth > box.clientWidth, `the graph scrolls inside its box: ${JSON.stringify(box)}`);
    // The node list stays beside the graph, in the window.
    const nav = await page.locator('nav.node-nav').boundingBox();
    assert.ok(nav && nav.x > box.left && nav.x + nav.width <= 1280, JSON.stringify(nav));
    // The header spans the window, no more.
    const top = await page.locator('.top').boundingBox();
    assert.equal(top?.width, 1280);
    await screenshot(page, 'fit-workflow-editor-1280');
  });

  it('at 390 px the editor does not scroll sideways and the graph shows the node chosen in the list', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openEditor();
    assert.equal(await pageOverflow(page), null);
    const last = page.locator('nav.node-nav button.node-button').last();
    const id = await last.getAttribute('data-node');
    await last.click();
    await page.locator(`.node-panel h3 bdi`, { hasText: id ?? '' }).waitFor();
    // The chosen node is scrolled into the graph's box, whole.
    const box = await graphBox();
    const node = await page.locator(`svg.workflow-graph g.node[data-node="${id}"] rect`).boundingBox();
    assert.ok(
      node && node.x >= box.left - 1 && node.x + node.width <= box.right + 1,
      `node ${JSON.stringify(node)} in ${JSON.stringify(box)}`,
    );
    assert.equal(await pageOverflow(page), null);
    await screenshot(page, 'fit-workflow-editor-390');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  /** Each card's pieces that run out of it (or are cut in their own box), as text. */
  const cardOverflow = (selector: string) =>
    page.locator(selector).evaluateAll((cards) =>
      cards.flatMap((card) => {
        const r = card.getBoundingClientRect();
        return [...card.querySelectorAll('*')]
          .filter((el) => {
            const b = el.getBoundingClientRect();
            const cut = el.tagName !== 'INPUT' && el.scrollWidth > el.clientWidth + 1;
            return b.right > r.right + 0.5 || b.left < r.left - 0.5 || cut;
          })
          .map((el) => `${el.tagName} "${(el.textContent ?? '').slice(0, 30)}" in ${Math.round(r.width)} px`);
      }),
    );

  for (const width of [1280, 390]) {
    it(`template cards keep a long address or path inside them at ${width} px`, async () => {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      // A template's text with long words (the gallery's first card): as the descriptions once read.
      await page.route('**/workflowtemplates?*', async (route) => {
        const res = await route.fetch();
        const json = await res.json();
        json.data[0].name = 'Birthday greeting for members of https://club.example.com/members';
        json.data[0].description =
          'Enroll a contact on their birthday (POST …/workflows/{workflowId}/enrollments): a greeting with a ' +
          'treat, and a reminder unless birthdayTreatRedeemed is "yes"; see https://club.example.com/birthday-treats.';
        await route.fulfill({ response: res, json });
      });
      try {
        await page.goto(`${c.base}/console/#/workflows`);
        await page.locator('.template-card h4', { hasText: 'club.example.com' }).waitFor();
        assert.deepEqual(await cardOverflow('.template-card'), []);
        assert.equal(await pageOverflow(page), null);
        await screenshot(page, `fit-template-cards-${width}`);
      } finally {
        await page.unroute('**/workflowtemplates?*');
      }
    });

    it(`chart axis labels are whole and at least 11 px at ${width} px`, async () => {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.goto(`${c.base}/console/#/overview`);
      const axes = page.locator('.chart-axis');
      await axes.first().waitFor();
      const labels = await axes.evaluateAll((els) =>
        els.flatMap((axis) => {
          const figure = (axis.closest('figure') ?? axis).getBoundingClientRect();
          return [...axis.children].map((s) => {
            const b = s.getBoundingClientRect();
            return {
              text: s.textContent ?? '',
              size: parseFloat(getComputedStyle(s).fontSize),
              whole:
                s.scrollWidth <= s.clientWidth + 1 &&
                b.left >= figure.left - 0.5 &&
                b.right <= figure.right + 0.5,
            };
          });
        }),
      );
      assert.ok(labels.length >= 6, JSON.stringify(labels));
      for (const l of labels) assert.ok(l.size >= 11 && l.whole, JSON.stringify(l));
      const days = labels.filter((l) => /^\d{4}-\d{2}-\d{2}$/.test(l.text));
      assert.equal(days.length, labels.length - labels.filter((l) => l.text.startsWith('Highest')).length);
      // Nothing sent yet: the scale says so (it read "Highest: 1" over empty charts).
      assert.deepEqual(
        labels.filter((l) => l.text.startsWith('Highest')).map((l) => l.text),
        ['Highest: 0', 'Highest: 0'],
      );
      assert.equal(await pageOverflow(page), null);
      await screenshot(page, `fit-overview-charts-${width}`);
    });
  }

  it('raised no script error and no Content-Security-Policy violation', () => {
    assert.deepEqual(c.problems, []);
  });
});
