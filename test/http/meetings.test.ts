import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { at10, MINUTE, meetingHelpers, NOT_THERE } from './meetings-support.ts';

describe('meetings', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const { slugOf, events, meetings, newEvent, book } = meetingHelpers(() => svc);
  const unauthorised = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string) => {
    const tokens: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-token' }];
    for (const headers of tokens) {
      const res = await call(svc.api, method, url, { auth: headers });
      assert.equal(res.statusCode, 401, `${method} ${url}`);
      assert.match(body(res).error.code, /^AUTH-00[12]$/);
    }
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/meetingevents', () => {
    it('creates an event type with defaults: weekday office hours, no reminder, increment = shortest duration', async () => {
      const slug = slugOf();
      const res = await call(svc.api, 'POST', events(a), {
        auth: a.auth,
        json: {
          name: 'Consultation',
          slug,
          durations: [60, 15, 30],
          timezone: 'Europe/Berlin',
          hosts: [{ email: 'host@example.com', firstName: 'Hal', mobile: '+12015550111' }],
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const e = body(res).data;
      assert.equal(e.slug, slug);
      assert.deepEqual(e.durations, [15, 30, 60]);
      assert.equal(e.slotIncrement, 15);
      assert.deepEqual(e.availability.mon, [{ start: { hour: 9, minute: 0 }, end: { hour: 17, minute: 0 } }]);
      assert.equal(e.availability.sun, undefined);
      assert.equal(e.reminder, undefined);
      assert.equal(e.active, true);
      assert.equal(e.bookingHorizonDays, 60);
      assert.equal(e.hosts[0].mobile, '+12015550111');
      assert.ok(e.hosts[0].id);
      assert.ok(e.created.at);
    });

    it('refuses invalid settings with 400', async () => {
      const base = { name: 'X', durations: [30], timezone: 'UTC' };
      const cases: [object, string][] = [
        [{ ...base }, 'VAL-001'],
        [{ ...base, slug: 'Has Capitals' }, 'VAL-001'],
        [{ ...base, slug: 'ab' }, 'VAL-001'],
        [{ ...base, slug: slugOf(), timezone: 'Mars/Olympus' }, 'MEET-004'],
        [{ ...base, slug: slugOf(), durations: [] }, 'VAL-001'],
        [
          {
            ...base,
            slug: slugOf(),
            availability: { mon: [{ start: { hour: 10, minute: 0 }, end: { hour: 9, minute: 0 } }] },
          },
          'MEET-004',
        ],
        [
          {
            ...base,
            slug: slugOf(),
            availability: { mon: [{ start: { hour: 9, minute: 0 }, end: { hour: 24, minute: 30 } }] },
          },
          'MEET-004',
        ],
        [{ ...base, slug: slugOf(), hosts: [{ mobile: '12' }] }, 'CONT-001'],
        [{ ...base, slug: slugOf(), reminder: { minutesBefore: 0 } }, 'VAL-001'],
      ];
      for (const [json, code] of cases) {
        const res = await call(svc.api, 'POST', events(a), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, code, JSON.stringify(json));
      }
    });

    it('refuses a slug taken by any account with 409 MEET-003', async () => {
      const e = await newEvent(b);
      const res = await call(svc.api, 'POST', events(a), {
        auth: a.auth,
        json: { name: 'Mine', slug: e.slug, durations: [30], timezone: 'UTC' },
      });
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'MEET-003');
    });

    it('requires a token (401) with the meetings:write scope (403)', async () => {
      await unauthorised('POST', events(a));
      const reader = await svc.newAccount({ scopes: ['meetings:read'] });
      const res = await call(svc.api, 'POST', events(reader), {
        auth: reader.auth,
        json: { name: 'X', slug: slugOf(), durations: [30], timezone: 'UTC' },
      });
      assert.equal(res.statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/meetingevents', () => {
    it("pages the account's event types newest first, filtered by name, never another account's", async () => {
      const tag = randomBytes(3).toString('hex');
      await newEvent(a, { name: `Alpha ${tag}` });
      await newEvent(a, { name: `Beta ${tag}` });
      await newEvent(b, { name: `Alpha ${tag}` });
      const res = await call(svc.api, 'GET', events(a, `?name=${tag}&limit=1`), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const page = body(res);
      assert.equal(page.data.length, 1);
      assert.equal(page.data[0].name, `Beta ${tag}`);
      assert.deepEqual(page.pagination, { limit: 1, offset: 0, hasNext: true, totalCount: 2 });
    });

    it('answers 400 for a bad page and 401 without a token', async () => {
      const res = await call(svc.api, 'GET', events(a, '?limit=0'), { auth: a.auth });
      assert.equal(res.statusCode, 400);
      await unauthorised('GET', events(a));
    });
  });

  describe('GET, PUT, DELETE /v1/accounts/:accountId/meetingevents/:meetingEventId', () => {
    it('gets, updates the given fields only, and deletes (freeing the slug)', async () => {
      const e = await newEvent(a, { description: 'keep me' });
      const got = await call(svc.api, 'GET', events(a, `/${e.id}`), { auth: a.auth });
      assert.equal(body(got).data.slug, e.slug);
      const newSlug = slugOf();
      const put = await call(svc.api, 'PUT', events(a, `/${e.id}`), {
        auth: a.auth,
        json: { name: 'Renamed', slug: newSlug, reminder: { minutesBefore: 30 }, active: false },
      });
      assert.equal(put.statusCode, 200, put.body);
      const u = body(put).data;
      assert.equal(u.name, 'Renamed');
      assert.equal(u.slug, newSlug);
      assert.equal(u.description, 'keep me');
      assert.deepEqual(u.reminder, { minutesBefore: 30, sms: true });
      assert.equal((await call(svc.externals, 'GET', `/v1/meetingevents/${newSlug}`)).statusCode, 404);
      const del = await call(svc.api, 'DELETE', events(a, `/${e.id}`), { auth: a.auth });
      assert.deepEqual(body(del), { success: true });
      assert.equal((await call(svc.api, 'GET', events(a, `/${e.id}`), { auth: a.auth })).statusCode, 404);
      await newEvent(b, { slug: newSlug });
    });

    it('refuses an invalid update with 400 and a taken slug with 409', async () => {
      const e = await newEvent(a);
      const other = await newEvent(b);
      for (const json of [{ timezone: 'Nowhere/Land' }, { durations: [2] }, { slug: 'UPPER' }]) {
        const res = await call(svc.api, 'PUT', events(a, `/${e.id}`), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
      }
      const taken = await call(svc.api, 'PUT', events(a, `/${e.id}`), {
        auth: a.auth,
        json: { slug: other.slug },
      });
      assert.equal(taken.statusCode, 409);
      assert.equal(body(taken).error.code, 'MEET-003');
    });

    it("answers another account's or an unknown event type with 404 MEET-001, and 401 without a token", async () => {
      const theirs = await newEvent(b);
      for (const id of [theirs.id, NOT_THERE, 'not-an-id']) {
        for (const [method, json] of [['GET'], ['PUT', { name: 'x' }], ['DELETE'], ['POST']] as const) {
          const url = method === 'POST' ? events(a, `/${id}/duplicate`) : events(a, `/${id}`);
          const res = await call(svc.api, method, url, { auth: a.auth, json });
          assert.equal(res.statusCode, 404, `${method} ${id}`);
          assert.equal(body(res).error.code, 'MEET-001');
        }
      }
      await unauthorised('GET', events(a, `/${theirs.id}`));
      await unauthorised('PUT', events(a, `/${theirs.id}`));
      await unauthorised('DELETE', events(a, `/${theirs.id}`));
      await unauthorised('POST', events(a, `/${theirs.id}/duplicate`));
    });
    it('keeps the meetings of a deleted event type, with eventId left out', async () => {
      const e = await newEvent(a);
      const m = await book(e.slug, at10(2));
      assert.equal((await call(svc.api, 'DELETE', events(a, `/${e.id}`), { auth: a.auth })).statusCode, 200);
      const kept = body(await call(svc.api, 'GET', meetings(a, `/${m.id}`), { auth: a.auth })).data;
      assert.equal(kept.eventId, undefined);
      assert.equal(kept.status, 'upcoming');
      assert.equal(kept.name, 'Demo');
    });
  });

  describe('POST /v1/accounts/:accountId/meetingevents/:meetingEventId/duplicate', () => {
    it('copies every setting under a new unique slug, again and again', async () => {
      const e = await newEvent(a, { bufferMinutes: 10, reminder: { minutesBefore: 15, sms: false } });
      const first = await call(svc.api, 'POST', events(a, `/${e.id}/duplicate`), { auth: a.auth });
      assert.equal(first.statusCode, 201, first.body);
      const c1 = body(first).data;
      assert.notEqual(c1.id, e.id);
      assert.equal(c1.slug, `${e.slug}-copy`);
      assert.equal(c1.name, 'Demo (copy)');
      assert.equal(c1.bufferMinutes, 10);
      assert.deepEqual(c1.reminder, { minutesBefore: 15, sms: false });
      assert.deepEqual(c1.availability, e.availability);
      const c2 = body(await call(svc.api, 'POST', events(a, `/${e.id}/duplicate`), { auth: a.auth })).data;
      assert.equal(c2.slug, `${e.slug}-copy-2`);
      assert.equal((await call(svc.externals, 'GET', `/v1/meetingevents/${c2.slug}`)).statusCode, 200);
    });
  });

  describe('GET /v1/accounts/:accountId/meetings and /meetings/:meetingId', () => {
    it('lists meetings by start, filtered by status and start range; gets one', async () => {
      const e = await newEvent(a);
      const m1 = await book(e.slug, at10(3));
      const m2 = await book(e.slug, at10(4));
      const all = body(await call(svc.api, 'GET', meetings(a, `?eventId=${e.id}`), { auth: a.auth }));
      assert.deepEqual(
        all.data.map((m: { id: string }) => m.id),
        [m1.id, m2.id],
      );
      const ranged = body(
        await call(svc.api, 'GET', meetings(a, `?eventId=${e.id}&from=${at10(4)}&status=upcoming`), {
          auth: a.auth,
        }),
      );
      assert.deepEqual(
        ranged.data.map((m: { id: string }) => m.id),
        [m2.id],
      );
      const before4 = body(
        await call(svc.api, 'GET', meetings(a, `?eventId=${e.id}&to=${at10(4)}`), { auth: a.auth }),
      );
      assert.deepEqual(
        before4.data.map((m: { id: string }) => m.id),
        [m1.id],
      );
      const none = body(
        await call(svc.api, 'GET', meetings(a, `?eventId=${e.id}&status=cancelled`), { auth: a.auth }),
      );
      assert.equal(none.pagination.totalCount, 0);
      const one = await call(svc.api, 'GET', meetings(a, `/${m1.id}`), { auth: a.auth });
      assert.equal(one.statusCode, 200);
      assert.equal(body(one).data.start, at10(3));
      assert.equal(body(one).data.status, 'upcoming');
    });

    it('answers 400 for bad filters, 404 for another account, 401 without a token', async () => {
      for (const q of ['?status=maybe', '?from=soon', '?limit=500']) {
        const res = await call(svc.api, 'GET', meetings(a, q), { auth: a.auth });
        assert.equal(res.statusCode, 400, q);
      }
      const e = await newEvent(b);
      const theirs = await book(e.slug, at10(3));
      const res = await call(svc.api, 'GET', meetings(a, `/${theirs.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'MEET-002');
      const listed = body(await call(svc.api, 'GET', meetings(a, `?eventId=${e.id}`), { auth: a.auth }));
      assert.equal(listed.pagination.totalCount, 0);
      await unauthorised('GET', meetings(a));
      await unauthorised('GET', meetings(a, `/${theirs.id}`));
    });
  });

  describe('PUT /v1/accounts/:accountId/meetings/:meetingId/cancel', () => {
    it('cancels a meeting and frees its slot; a second cancel answers it unchanged', async () => {
      const e = await newEvent(a);
      const start = at10(5);
      const m = await book(e.slug, start);
      const res = await call(svc.api, 'PUT', meetings(a, `/${m.id}/cancel`), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.status, 'cancelled');
      assert.ok(body(res).data.cancelled);
      const again = await call(svc.api, 'PUT', meetings(a, `/${m.id}/cancel`), { auth: a.auth });
      assert.equal(again.statusCode, 200);
      assert.equal(body(again).data.cancelled, body(res).data.cancelled);
      const slots = body(
        await call(
          svc.externals,
          'GET',
          `/v1/meetingevents/${e.slug}/slots?from=${start}&to=${new Date(Date.parse(start) + 30 * MINUTE).toISOString()}`,
        ),
      ).data.slots;
      assert.deepEqual(slots, [{ start, end: new Date(Date.parse(start) + 30 * MINUTE).toISOString() }]);
      await book(e.slug, start);
    });

    it('refuses a meeting that has ended with 409; 404 for another account; 401 without a token', async () => {
      const e = await newEvent(a);
      const m = await book(e.slug, at10(6));
      await svc.db.query(
        `UPDATE meetings SET start_at = now() - interval '2 hours', end_at = now() - interval '90 minutes',
                blocked_until = now() - interval '90 minutes' WHERE id = $1`,
        [m.id],
      );
      const res = await call(svc.api, 'PUT', meetings(a, `/${m.id}/cancel`), { auth: a.auth });
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'MEET-018');
      const theirs = await book((await newEvent(b)).slug, at10(6));
      for (const id of [theirs.id, NOT_THERE, 'nope']) {
        const r = await call(svc.api, 'PUT', meetings(a, `/${id}/cancel`), { auth: a.auth });
        assert.equal(r.statusCode, 404, id);
        assert.equal(body(r).error.code, 'MEET-002');
      }
      assert.equal(
        body(await call(svc.api, 'GET', meetings(b, `/${theirs.id}`), { auth: b.auth })).data.status,
        'upcoming',
      );
      await unauthorised('PUT', meetings(a, `/${theirs.id}/cancel`));
    });
  });
});
