/**
 * Accessibility of the console: axe-core finds no serious or critical violation on the sign-in
 * page, an invitation page, and every route of console/js/app.js (read from its ROUTES list, with
 * data made first so tables are not empty); and at 360 px wide no main page scrolls sideways.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';

/** The hash routes of the console, in the order of app.js's ROUTES list. */
const appSource = readFileSync(new URL('../../console/js/app.js', import.meta.url), 'utf8');
const routesBlock = /const ROUTES = \[([\s\S]*?)\n\];/.exec(appSource)?.[1] ?? '';
const ROUTES = [...routesBlock.matchAll(/path: '([^']+)'/g)].map((m) => m[1] as string);
/** The pages of the navigation (NAV): each is one of the ROUTES checked. */
const navBlock = /const NAV = \[([\s\S]*?)\n\];/.exec(appSource)?.[1] ?? '';
const NAV = [...navBlock.matchAll(/\['(\/[^']+)'/g)].map((m) => m[1] as string);

describe('the console’s accessibility (axe-core) and narrow screens', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  let inviteToken: string;
  /** The record to open for each detail route (its path with the :id). */
  const ids = new Map<string, string>();
  const further: string[] = [];
  const api = async (method: 'GET' | 'POST', path: string, json?: unknown) => {
    const res = await call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${res.body}`);
    return body(res).data;
  };

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    const numbers = await api('GET', '/phonenumbers');
    const ourNumber: string = numbers[0].number;
    const contact = await api('POST', '/contacts', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      mobile: '+14155550142',
      email: 'ada@example.com',
    });
    ids.set('/contacts/:id', contact.id);
    const template = await api('POST', '/templates', {
      name: 'Welcome',
      template: 'Hi {{{firstName}}}, welcome.',
    });
    const responder = await api('POST', '/autoresponders', {
      name: 'Hours',
      trigger: { type: 'keywords', keywords: ['hours'] },
      message: { message: 'We are open 9–5.' },
    });
    const list = await api('POST', '/lists', { name: 'Pioneers' });
    ids.set('/lists/:id', list.id);
    await api('POST', `/lists/${list.id}/contacts`, { contacts: [{ id: contact.id }] }).catch(
      () => undefined,
    );
    const sent = await api('POST', '/messages', { contacts: [{ id: contact.id }], template: 'Hello Ada' });
    ids.set('/jobs/:id', sent.jobId);
    const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550142', to: ourNumber, text: 'Thanks! When does it arrive?' },
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    ids.set('/inbox/:id', body(inbound).data.conversationId);
    ids.set('/messages/:id', body(inbound).data.id ?? (await api('GET', '/messages'))[0].id);
    const hook = await api('POST', '/webhooks', {
      url: 'https://example.com/hook',
      eventTypes: ['message-sent'],
    });
    ids.set('/webhooks/:id', hook.id);
    const flow = await api('POST', '/workflows', {
      name: 'Greeting',
      versions: [
        {
          activate: true,
          definition: {
            nodes: [
              { id: 't', type: { id: 'trigger.manual' } },
              { id: 'm', type: { id: 'action.send-message' }, config: { message: 'Hello' } },
            ],
            edges: [{ source: 't', target: 'm' }],
          },
        },
      ],
    });
    ids.set('/workflows/:id', flow.id);
    // Further states of the pages: a new record's form, an edit form, a prefilled compose form,
    // the closed conversations, an unknown route.
    further.push(
      '/contacts/new',
      `/templates?edit=${template.id}`,
      `/autoresponders?edit=${responder.id}`,
      `/compose?contact=${contact.id}`,
      `/compose?list=${list.id}`,
      '/inbox?show=closed',
      `/messages?jobId=${sent.jobId}`,
      '/no-such-page',
    );
    const invite = await api('POST', '/users', { email: 'max@example.com', role: 'Member' });
    inviteToken = String(invite.link).split('/accept/')[1] as string;
  });
  after(() => c?.close());

  /** Waits for the view to settle: its heading shown and no request in flight for a moment. */
  async function settle(heading = '.view h2') {
    await page.locator(heading).first().waitFor();
    await page.waitForLoadState('networkidle');
  }

  async function check(where: string) {
    const found = await axeViolations(page);
    assert.equal(found.length, 0, describeViolations(where, found));
  }

  /** How the page overflows the window sideways, or null when it does not. */
  async function overflow(): Promise<string | null> {
    const { scroll, inner, culprits } = await page.evaluate(() => {
      const inner = window.innerWidth;
      // The outermost elements that reach past the right edge, to say what is too wide.
      const culprits = [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > inner + 1)
        // Inside a scrolling box (the narrow navigation, a wide table) is not the page's overflow.
        .filter((el) => !el.parentElement?.closest('.nav, table'))
        .filter((el) => !(el.parentElement && el.parentElement.getBoundingClientRect().right > inner + 1))
        .slice(0, 3)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      return { scroll: document.documentElement.scrollWidth, inner, culprits };
    });
    return scroll > inner + 1 ? `${scroll}px wide in ${inner}px (${culprits.join(', ')})` : null;
  }

  it('reads the console’s routes from app.js', () => {
    assert.ok(ROUTES.length >= 20, `ROUTES: ${ROUTES.join(', ')}`);
    assert.ok(ROUTES.includes('/overview') && ROUTES.includes('/contacts/:id'));
    assert.ok(NAV.length >= 10, `NAV: ${NAV.join(', ')}`);
    assert.deepEqual(
      NAV.filter((p) => !ROUTES.includes(p)),
      [],
    );
  });

  it('the sign-in page has no serious or critical violation', async () => {
    await page.goto(`${c.base}/console/`);
    await page.locator('input[name=email]').waitFor();
    await check('sign-in');
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      assert.equal(await overflow(), null, 'the sign-in page at 360 px');
      await check('sign-in at 360 px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  it('the check reports a violation when the page has one (an input without a label)', async () => {
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.id = 'unlabelled';
      document.body.append(input);
    });
    const found = await axeViolations(page);
    await page.evaluate(() => document.getElementById('unlabelled')?.remove());
    assert.deepEqual(
      found.map((v) => [v.id, v.impact, v.targets]),
      [['label', 'critical', ['#unlabelled']]],
    );
  });

  it('an invitation page has no serious or critical violation', async () => {
    await page.goto(`${c.base}/console/#/accept/${inviteToken}`);
    await page.locator('h1', { hasText: 'Join Sparrow' }).waitFor();
    await check('invitation');
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      assert.equal(await overflow(), null, 'the invitation page at 360 px');
      await check('invitation at 360 px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  it('signs in', async () => {
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });

  /**
   * The hash path to open for a route: the route itself, or a detail route with the id of the
   * record made for it; for a detail route this test makes no record for (a page added since), the
   * first record its list page links to, or null when it links to none.
   */
  async function targetOf(route: string): Promise<string | null> {
    if (!route.includes(':')) return route;
    let id = ids.get(route);
    if (!id) {
      const listPath = route.slice(0, route.indexOf('/:'));
      await page.goto(`${c.base}/console/#${listPath}`);
      await settle();
      const href = await page
        .locator(`.view a[href^="#${listPath}/"]`)
        .first()
        .getAttribute('href', { timeout: 2_000 })
        .catch(() => null);
      if (!href) return null;
      id = href.slice(`#${listPath}/`.length);
      ids.set(route, id);
    }
    return route.replace(/:[A-Za-z]+/, id);
  }

  for (const route of ROUTES) {
    it(`#${route} has no serious or critical violation`, async (t) => {
      const target = await targetOf(route);
      if (!target) return t.skip(`no record to open for #${route}`);
      await page.goto(`${c.base}/console/#${target}`);
      await settle();
      await check(`#${target}`);
    });
  }

  it('further states of the pages (forms, filters, not found) have no serious or critical violation', async () => {
    const found: string[] = [];
    for (const target of further) {
      await page.goto(`${c.base}/console/#${target}`);
      await settle();
      const violations = await axeViolations(page);
      if (violations.length) found.push(describeViolations(`#${target}`, violations));
    }
    assert.deepEqual(found, []);
  });

  it('a page showing an error has no serious or critical violation', async () => {
    await page.goto(`${c.base}/console/#/contacts/new`);
    await settle();
    await page.fill('input[name=mobile]', '12');
    await page.locator('button', { hasText: 'Create contact' }).click();
    await page.locator('.flash-error').waitFor();
    await check('a contact form with an error');
  });

  it('at 360 px wide, no page scrolls sideways or has a serious or critical violation', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const wide: string[] = [];
    for (const route of ROUTES) {
      const target = await targetOf(route);
      if (!target) continue;
      await page.goto(`${c.base}/console/#${target}`);
      await settle();
      const too = await overflow();
      if (too) wide.push(`#${target}: ${too}`);
      // The narrow layout (scrolling tables and navigation) is checked by axe-core too.
      const found = await axeViolations(page);
      if (found.length) wide.push(describeViolations(`#${target} at 360 px`, found));
    }
    assert.deepEqual(wide, []);
    assert.deepEqual(c.problems, []);
  });
});
