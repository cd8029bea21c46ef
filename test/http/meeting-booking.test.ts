import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { at10ms, bookingHelpers, iso, MINUTE } from './meetings-support.ts';

describe('public meeting booking', () => {
  let svc: TestService;
  let a: TestAccount;
  const { newEvent, pub, book, attendee } = bookingHelpers(
    () => svc,
    () => a,
  );

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
  });
  after(() => svc.close());

  describe('GET {externals}/v1/meetingevents/:slug', () => {
    it('shows the public face of an active event type without a token, hosts by name only', async () => {
      const e = await newEvent({
        description: 'Say hello',
        hosts: [
          { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', mobile: '+12015550999' },
        ],
      });
      const res = await call(svc.externals, 'GET', pub(e.slug));
      assert.equal(res.statusCode, 200, res.body);
      const d = body(res).data;
      assert.equal(d.slug, e.slug);
      assert.equal(d.name, 'Intro call');
      assert.equal(d.description, 'Say hello');
      assert.deepEqual(d.durations, [30, 60]);
      assert.deepEqual(d.hosts, [{ firstName: 'Grace', lastName: 'Hopper' }]);
      assert.equal(res.body.includes('grace@example.com'), false);
    });

    it('answers an unknown, malformed or inactive slug with 404 MEET-001', async () => {
      const e = await newEvent({ active: false });
      for (const slug of ['no-such-slug-here', 'NOT A SLUG', e.slug]) {
        const res = await call(svc.externals, 'GET', pub(slug));
        assert.equal(res.statusCode, 404, slug);
        assert.equal(body(res).error.code, 'MEET-001');
      }
    });
  });

  describe('POST {externals}/v1/meetingevents/:slug/book', () => {
    it('books a free slot: an upcoming meeting, the attendee a contact, a confirmation text queued', async () => {
      const e = await newEvent({
        description: 'A first chat',
        hosts: [{ firstName: 'Grace', email: 'grace@example.com' }],
      });
      const t = at10ms(5);
      const who = attendee();
      const res = await book(e.slug, { start: iso(t), duration: 60, attendees: [who], notes: 'About SMS' });
      assert.equal(res.statusCode, 200, res.body);
      const m = body(res).data;
      assert.equal(body(res).success, true);
      assert.equal(m.status, 'upcoming');
      assert.equal(m.name, 'Intro call');
      assert.equal(m.description, 'A first chat');
      assert.equal(m.start, iso(t));
      assert.equal(m.end, iso(t + 60 * MINUTE));
      assert.equal(m.notes, 'About SMS');
      assert.equal(m.hosts[0].email, 'grace@example.com');
      assert.equal(m.attendees[0].mobile, who.mobile);
      assert.equal(m.attendees[0].email, who.email);

      const contact = await call(
        svc.api,
        'GET',
        `/v1/accounts/${a.accountId}/contacts/${m.attendees[0].id}`,
        {
          auth: a.auth,
        },
      );
      assert.equal(contact.statusCode, 200, contact.body);
      assert.equal(body(contact).data.mobile.number, who.mobile);
      assert.equal(body(contact).data.firstName, 'Ada');
      const msgs = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages?contactId=${m.attendees[0].id}`, {
          auth: a.auth,
        }),
      ).data;
      assert.equal(msgs.length, 1);
      assert.match(msgs[0].message, /"Intro call" on .* is booked\./);
      assert.equal(msgs[0].status === 'failed', false);

      const listed = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/meetings/${m.id}`, { auth: a.auth }),
      ).data;
      assert.equal(listed.eventId, e.id);
    });

    it('books an attendee with an email only, and sends no text', async () => {
      const e = await newEvent();
      const res = await book(e.slug, {
        start: iso(at10ms(6)),
        duration: 30,
        attendees: [{ email: 'x@example.com' }],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.attendees[0].email, 'x@example.com');
      assert.equal(body(res).data.attendees[0].mobile, undefined);
    });

    it('respects an opt-out: the confirmation is a failed CONT-010 message, the booking stands', async () => {
      const number = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }),
      ).data[0].number;
      const who = attendee();
      const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: who.mobile, to: number, text: 'STOP' },
      });
      assert.equal(stop.statusCode, 200, stop.body);
      const e = await newEvent();
      const res = await book(e.slug, { start: iso(at10ms(7)), duration: 30, attendees: [who] });
      assert.equal(res.statusCode, 200, res.body);
      const msgs = body(
        await call(
          svc.api,
          'GET',
          `/v1/accounts/${a.accountId}/messages?contactId=${body(res).data.attendees[0].id}&limit=100`,
          { auth: a.auth },
        ),
      ).data.filter((x: { outgoing: boolean; message: string }) => x.outgoing && /is booked/.test(x.message));
      assert.equal(msgs.length, 1);
      assert.equal(msgs[0].status, 'failed');
      assert.equal(msgs[0].error.code, 'CONT-010');
    });

    it('refuses bad bookings with a registered 4xx and writes nothing', async () => {
      const e = await newEvent({ minimumNoticeMinutes: 120, bookingHorizonDays: 30 });
      const ok = { start: iso(at10ms(8)), duration: 30, attendees: [attendee()] };
      const cases: [object, number, string][] = [
        [{ ...ok, duration: 45 }, 400, 'MEET-010'],
        [{ ...ok, attendees: [] }, 400, 'MEET-011'],
        [{ ...ok, attendees: [{ firstName: 'Nobody' }] }, 400, 'MEET-011'],
        [{ ...ok, start: iso(at10ms(-2)) }, 400, 'MEET-012'],
        [{ ...ok, start: iso(at10ms(40)) }, 400, 'MEET-013'],
        [
          { ...ok, start: iso(Math.ceil((Date.now() + 30 * MINUTE) / 3_600_000) * 3_600_000) },
          400,
          'MEET-014',
        ],
        [{ ...ok, start: iso(at10ms(8) + 7 * MINUTE) }, 400, 'MEET-015'],
        [{ ...ok, attendees: [{ mobile: '+1 555' }] }, 400, 'CONT-001'],
        [{ ...ok, attendees: [{ email: 'not-an-email' }] }, 400, 'VAL-001'],
        [{ ...ok, start: 'tomorrow' }, 400, 'VAL-001'],
        [{ duration: 30, attendees: [attendee()] }, 400, 'VAL-001'],
      ];
      for (const [json, status, code] of cases) {
        const res = await book(e.slug, json);
        assert.equal(res.statusCode, status, `${JSON.stringify(json)} → ${res.body}`);
        assert.equal(body(res).error.code, code, JSON.stringify(json));
      }
      const unknown = await book('no-such-event', ok);
      assert.equal(unknown.statusCode, 404);
      assert.equal(body(unknown).error.code, 'MEET-001');
      const listed = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/meetings?eventId=${e.id}`, { auth: a.auth }),
      );
      assert.equal(listed.pagination.totalCount, 0);
    });

    it('refuses a taken slot with 409 MEET-016', async () => {
      const e = await newEvent();
      const json = { start: iso(at10ms(9)), duration: 60, attendees: [attendee()] };
      assert.equal((await book(e.slug, json)).statusCode, 200);
      const again = await book(e.slug, { ...json, attendees: [attendee()] });
      assert.equal(again.statusCode, 409);
      assert.equal(body(again).error.code, 'MEET-016');
      // An overlapping, shorter meeting is refused too (30 min starting inside the hour).
      const overlap = await book(e.slug, { ...json, start: iso(at10ms(9) + 30 * MINUTE), duration: 30 });
      assert.equal(overlap.statusCode, 409);
    });

    it('lets exactly one of two concurrent bookings of one slot win', async () => {
      for (let round = 0; round < 3; round++) {
        const e = await newEvent();
        const start = iso(at10ms(10 + round));
        const people = [attendee(), attendee()];
        const [r1, r2] = await Promise.all(
          people.map((p) => book(e.slug, { start, duration: 30, attendees: [p] })),
        );
        assert.deepEqual([r1.statusCode, r2.statusCode].sort(), [200, 409], `${r1.body} ${r2.body}`);
        const loser = r1.statusCode === 409 ? 0 : 1;
        assert.equal(body([r1, r2][loser]).error.code, 'MEET-016');
        const listed = body(
          await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/meetings?eventId=${e.id}`, {
            auth: a.auth,
          }),
        );
        assert.equal(listed.pagination.totalCount, 1);
        // The winner's attendee became a contact; the loser's did not (its transaction rolled back whole).
        const contacts = async (p: { mobile: string }) =>
          body(
            await call(
              svc.api,
              'GET',
              `/v1/accounts/${a.accountId}/contacts?mobile=${encodeURIComponent(p.mobile)}`,
              { auth: a.auth },
            ),
          ).data.length;
        assert.equal(await contacts(people[1 - loser]), 1);
        assert.equal(await contacts(people[loser]), 0);
      }
    });

    it('never answers hostile input with a 5xx', async () => {
      const e = await newEvent();
      const junk: unknown[] = [
        null,
        '',
        'x'.repeat(5000),
        -1,
        1e308,
        0.5,
        true,
        [],
        [null],
        {},
        '\u0000',
        '😀',
      ];
      const failures: string[] = [];
      for (const v of junk) {
        for (const json of [
          v,
          { start: v, duration: v, attendees: v, notes: v },
          { start: iso(at10ms(12)), duration: 30, attendees: [{ email: v, mobile: v, firstName: v }] },
        ]) {
          const res = await book(e.slug, json);
          if (res.statusCode >= 500)
            failures.push(`book ${JSON.stringify(json)?.slice(0, 60)} → ${res.statusCode}`);
          else if (res.statusCode >= 400 && body(res).success !== false) failures.push('no envelope');
        }
        const q = encodeURIComponent(String(v));
        for (const url of [
          pub(e.slug, `/slots?from=${q}&to=${q}&duration=${q}`),
          pub(String(v)),
          pub(String(v), '/slots'),
        ]) {
          const res = await call(svc.externals, 'GET', url);
          if (res.statusCode >= 500) failures.push(`${url.slice(0, 60)} → ${res.statusCode}`);
        }
      }
      assert.deepEqual(failures, []);
    });
  });
});
