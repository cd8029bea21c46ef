/**
 * The shared setup of the console's accessibility tests: the routes read from console/js/site-map.js,
 * a service with a record for every detail page, the helpers that open a route, run axe-core and
 * measure sideways overflow, and routeSuite(): one half of the routes at one width. The routes are
 * checked in four files (accessibility.test.ts and accessibility-routes.test.ts at desktop width,
 * accessibility-narrow*.test.ts at 360 px), half the routes each, so that every file stays well
 * within the runner's 180 s per file on a busy two-core machine. Every page the walk visits is
 * saved as a full-page screenshot under test/console/screenshots/ (a CI artifact), named by route
 * and width: `page-contacts-id-1280px.png`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, call } from '../helpers.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { routeScreenshot, routeScreenshotName, SCREENSHOTS } from './screenshot.ts';

/** The hash routes of the console, in the order of site-map.js's ROUTES list. */
const appSource = readFileSync(new URL('../../console/js/site-map.js', import.meta.url), 'utf8');
const routesBlock = /(?:export )?const ROUTES = \[([\s\S]*?)\n\];/.exec(appSource)?.[1] ?? '';
export const ROUTES = [...routesBlock.matchAll(/path: '([^']+)'/g)].map((m) => m[1] as string);
/** The pages of the navigation (NAV): each is one of the ROUTES checked. */
const navBlock = /(?:export )?const NAV = \[([\s\S]*?)\n\];/.exec(appSource)?.[1] ?? '';
export const NAV = [...navBlock.matchAll(/\['(\/[^']+)'/g)].map((m) => m[1] as string);

/** Quiet: no request of the page in flight, none started or ended for this long. */
const QUIET_MS = 150;

/**
 * Counts the page's requests in flight. `quiet()` answers once none has been in flight for
 * QUIET_MS, counted from the call at the earliest (a request the view is about to make has had time
 * to start). Playwright's `networkidle` asks for 500 ms, which cost this walk ~0.4 s a page.
 */
function requestsInFlight(page: ConsoleSession['page']) {
  let inFlight = 0;
  let changed = performance.now();
  const start = () => {
    inFlight++;
    changed = performance.now();
  };
  const end = () => {
    inFlight--;
    changed = performance.now();
  };
  page.on('request', start);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  return {
    async quiet(timeoutMs = 20_000) {
      const from = performance.now();
      for (;;) {
        const now = performance.now();
        if (inFlight <= 0 && now - Math.max(changed, from) >= QUIET_MS) return;
        assert.ok(
          now - from < timeoutMs,
          `the page still had ${inFlight} requests in flight after ${timeoutMs} ms`,
        );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

/** A console with data for every page, and the helpers the accessibility tests use. */
export async function startAccessibility() {
  const c: ConsoleSession = await startConsole();
  const { svc, page } = c;
  const network = requestsInFlight(page);
  const a = await svc.newAccount({ balance: 50 });
  /** The record to open for each detail route (its path with the :id). */
  const ids = new Map<string, string>();
  const further: string[] = [];
  const api = async (method: 'GET' | 'POST', path: string, json?: unknown) => {
    const res = await call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });
    assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${res.body}`);
    return body(res).data;
  };
  const numbers = await api('GET', '/phonenumbers');
  const ourNumber: string = numbers[0].number;
  // A create answers `data` as an array of the one record created.
  const [contact] = await api('POST', '/contacts', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    mobile: '+14155550142',
    email: 'ada@example.com',
  });
  ids.set('/contacts/:id', contact.id);
  const [template] = await api('POST', '/templates', {
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
  await api('POST', `/lists/${list.id}/contacts`, { contacts: [{ id: contact.id }] }).catch(() => undefined);
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
  ids.set('/workflows/:id/editor', flow.id);
  // A record for every detail page (drips, forms, links, calls, meetings, reports), so none is skipped.
  const drip = await api('POST', '/dripcampaigns', {
    name: 'Welcome series',
    trigger: { type: 'list', list: { id: list.id }, delay: {} },
    messages: [
      { message: 'Welcome {{{firstName}}}', delay: {} },
      { message: 'Day two', delay: { days: 1 } },
    ],
  });
  ids.set('/drips/:id', drip.id);
  const form = await api('POST', '/forms', {
    name: 'Newsletter',
    fields: [{ name: 'firstName' }, { name: 'email' }],
  });
  ids.set('/forms/:id', form.id);
  const tracked = await api('POST', '/links', { name: 'Spring page', url: 'https://example.com/spring' });
  ids.set('/links/:id', tracked.id);
  const made = await call(svc.externals, 'POST', '/v1/providers/simulator/calls', {
    json: { from: '+14155550142', to: ourNumber, duration: 42 },
  });
  assert.ok(made.statusCode < 300, made.body);
  ids.set('/calls/:id', body(made).data.id);
  const meeting = await api('POST', '/meetingevents', {
    name: 'Intro call',
    slug: `intro-${a.accountId.slice(-12)}`,
    durations: [30],
    timezone: 'UTC',
    availability: Object.fromEntries(
      ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [
        d,
        [{ start: { hour: 0, minute: 0 }, end: { hour: 24, minute: 0 } }],
      ]),
    ),
  });
  ids.set('/meetings/:id', meeting.id);
  const slots = body(
    await call(svc.externals, 'GET', `/v1/meetingevents/${meeting.slug}/slots?duration=30`),
  ).data;
  const booked = await call(svc.externals, 'POST', `/v1/meetingevents/${meeting.slug}/book`, {
    json: {
      start: slots.slots[0].start,
      duration: 30,
      attendees: [{ firstName: 'Ada', email: 'ada@example.com' }],
    },
  });
  assert.equal(booked.statusCode, 200, booked.body);
  ids.set('/reports/:kind/:id', `jobs/${sent.jobId}`);
  // A route, so the Routes page shows its table and not only its form.
  await api('POST', '/routes', {
    prefix: '4477',
    providers: [
      { provider: 'smpp', priority: 1, weight: 70 },
      { provider: 'simulator', priority: 2 },
    ],
    description: 'UK mobiles',
  });
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
    `/reports/drips/${drip.id}`,
    `/reports/workflows/${flow.id}`,
    '/workflows/new/editor',
    '/no-such-page',
  );
  const invite = await api('POST', '/users', { email: 'max@example.com', role: 'Member' });
  const inviteToken = String(invite.link).split('/accept/')[1] as string;
  /** Waits for the view to settle: its heading shown and no request in flight for a moment. */
  async function settle(heading = '.view h2') {
    await page.locator(heading).first().waitFor();
    await network.quiet();
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
    // '/reports/:kind/:id' takes 'jobs/<id>' for both parameters.
    return route.replace(/:[A-Za-z]+(\/:[A-Za-z]+)?/, id);
  }

  return { c, svc, page, a, ids, further, inviteToken, settle, check, overflow, targetOf };
}

/** Every other route of ROUTES: `half` 1 takes the first, third, …; 2 the second, fourth, …. */
export function routesHalf(half: 1 | 2): string[] {
  return ROUTES.filter((_, i) => i % 2 === half - 1);
}

/**
 * A suite that signs in and opens each route of `routes` at `width` px: no serious or critical
 * axe-core violation, and at a narrow width no sideways scroll; no script error or CSP violation.
 * Each page is kept as a full-page screenshot named by its route and width (screenshot.ts).
 */
export function routeSuite(title: string, routes: string[], width: number) {
  describe(title, { skip: skipWithoutChromium }, () => {
    let t: Awaited<ReturnType<typeof startAccessibility>>;
    // The file system's clock may round: a second's margin, as no earlier run is that recent.
    const started = Date.now() - 1000;
    before(async () => {
      t = await startAccessibility();
      await t.page.setViewportSize({ width, height: width < 640 ? 740 : 720 });
      await t.c.signIn(t.a);
      await t.page.locator('h2', { hasText: 'Overview' }).waitFor();
    });
    after(() => t?.c.close());

    for (const route of routes) {
      it(`#${route} at ${width} px`, async () => {
        const target = await t.targetOf(route);
        assert.ok(target, `no record to open for #${route}`);
        await t.page.goto(`${t.c.base}/console/#${target}`);
        await t.settle();
        await routeScreenshot(t.page, route, width);
        if (width < 640) assert.equal(await t.overflow(), null, `#${target} at ${width} px`);
        await t.check(`#${target} at ${width} px`);
      });
    }

    it('reported no script error or CSP violation', () => {
      assert.deepEqual(t.c.problems, []);
    });

    it('kept a screenshot of every page it visited, written by this run', () => {
      const stale = routes
        .map((route) => path.join(SCREENSHOTS, `${routeScreenshotName(route, width)}.png`))
        .filter((file) => !existsSync(file) || statSync(file).mtimeMs < started);
      assert.deepEqual(stale, []);
    });
  });
}
