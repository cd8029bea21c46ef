/**
 * Test support shared by the meeting test files: times, an always-open availability, and the
 * request helpers they create event types and book meetings with. Not a test file itself.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';

export const MINUTE = 60_000;
export const DAY = 86_400_000;
export const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';
const ALL_DAY = [{ start: { hour: 0, minute: 0 }, end: { hour: 24, minute: 0 } }];
export const EVERY_DAY = Object.fromEntries(
  ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [d, ALL_DAY]),
);

/** 10:00 UTC, `days` days from today, in milliseconds. */
export const at10ms = (days: number) => {
  const d = new Date(Date.now() + days * DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 10);
};
export const iso = (ms: number) => new Date(ms).toISOString();
/** 10:00 UTC, `days` days from today, as an ISO string. */
export const at10 = (days: number) => iso(at10ms(days));

/**
 * Account-side helpers (event types under `/v1/accounts/:accountId`, booking with one attendee)
 * against the service `service()` answers (set once the suite's `before` ran).
 */
export function meetingHelpers(service: () => TestService) {
  let seq = 0;
  const slugOf = () => `m-${randomBytes(4).toString('hex')}-${seq++}`;
  const mobile = () => `+1201${String(5_560_000 + seq++).padStart(7, '0')}`;
  const events = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/meetingevents${rest}`;
  const meetings = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/meetings${rest}`;
  const newEvent = async (acc: TestAccount, json: object = {}) => {
    const res = await call(service().api, 'POST', events(acc), {
      auth: acc.auth,
      json: {
        name: 'Demo',
        slug: slugOf(),
        durations: [30],
        timezone: 'UTC',
        availability: EVERY_DAY,
        ...json,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const book = async (
    slug: string,
    start: string,
    attendees: object[] = [{ firstName: 'Ada', mobile: mobile() }],
  ) => {
    const res = await call(service().externals, 'POST', `/v1/meetingevents/${slug}/book`, {
      json: { start, duration: 30, attendees },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  return { slugOf, mobile, events, meetings, newEvent, book };
}

/**
 * Public booking helpers (event types of `account()` open a year ahead, raw booking answers)
 * against the service `service()` answers (both set once the suite's `before` ran).
 */
export function bookingHelpers(service: () => TestService, account: () => TestAccount) {
  let seq = 0;
  const slugOf = () => `t-${randomBytes(4).toString('hex')}-${seq++}`;
  const mobile = () => `+1201${String(5_550_000 + seq++).padStart(7, '0')}`;
  const newEvent = async (json: object = {}) => {
    const a = account();
    const res = await call(service().api, 'POST', `/v1/accounts/${a.accountId}/meetingevents`, {
      auth: a.auth,
      json: {
        name: 'Intro call',
        slug: slugOf(),
        durations: [30, 60],
        timezone: 'UTC',
        availability: EVERY_DAY,
        bookingHorizonDays: 365,
        ...json,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data as { id: string; slug: string };
  };
  const pub = (slug: string, rest = '') => `/v1/meetingevents/${encodeURIComponent(slug)}${rest}`;
  const book = (slug: string, json: unknown) =>
    call(service().externals, 'POST', pub(slug, '/book'), { json });
  const attendee = () => ({
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    mobile: mobile(),
  });
  return { slugOf, mobile, newEvent, pub, book, attendee };
}
