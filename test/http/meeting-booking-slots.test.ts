import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { at10ms, bookingHelpers, DAY, iso, MINUTE } from './meetings-support.ts';

describe('public meeting slots', () => {
  let svc: TestService;
  let a: TestAccount;
  const { newEvent, pub, book, attendee } = bookingHelpers(
    () => svc,
    () => a,
  );
  const slots = async (slug: string, q: Record<string, string | number>) => {
    const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
    const res = await call(svc.externals, 'GET', `${pub(slug, '/slots')}?${qs}`);
    assert.equal(res.statusCode, 200, res.body);
    return (body(res).data.slots as { start: string; end: string }[]).map((s) => s.start);
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
  });
  after(() => svc.close());

  describe('GET {externals}/v1/meetingevents/:slug/slots', () => {
    it('steps through the availability by the slot increment and ends each slot by the range end', async () => {
      const e = await newEvent({
        durations: [45],
        slotIncrement: 30,
        availability: Object.fromEntries(
          ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [
            d,
            [{ start: { hour: 9, minute: 0 }, end: { hour: 11, minute: 0 } }],
          ]),
        ),
      });
      const day = at10ms(3) - DAY / 24;
      const got = await slots(e.slug, { from: iso(day - 10 * 3_600_000), to: iso(day + 12 * 3_600_000) });
      // 09:00, 09:30, 10:00 (10:15 would end after 11:00).
      assert.deepEqual(got, [iso(day), iso(day + 30 * MINUTE), iso(day + 60 * MINUTE)]);
    });

    it('keeps local times across a DST change day in the event time zone', async () => {
      // The next day within a year on which New York's UTC offset changes.
      const nyOffset = (ms: number) => {
        const p = new Intl.DateTimeFormat('en-US', {
          timeZone: 'America/New_York',
          timeZoneName: 'longOffset',
        })
          .formatToParts(new Date(ms))
          .find((x) => x.type === 'timeZoneName')?.value as string;
        const m = /GMT([+-])(\d\d):(\d\d)/.exec(p) as RegExpExecArray;
        return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
      };
      let change = at10ms(2);
      while (nyOffset(change) === nyOffset(change + DAY)) change += DAY;
      change += DAY; // 10:00 UTC on the change day, after the 02:00 local switch.
      const before = nyOffset(change - DAY);
      const afterOff = nyOffset(change);
      const dayStart = (ms: number) => {
        const d = new Date(ms);
        return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      };
      const e = await newEvent({
        timezone: 'America/New_York',
        durations: [60],
        availability: Object.fromEntries(
          ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [
            d,
            [
              { start: { hour: 0, minute: 0 }, end: { hour: 4, minute: 0 } },
              { start: { hour: 9, minute: 0 }, end: { hour: 10, minute: 0 } },
            ],
          ]),
        ),
      });
      const local = (day: number, hour: number, offset: number) =>
        dayStart(day) + hour * 3_600_000 - offset * MINUTE;
      // The day before: 09:00 local at the old offset; the change day and after: at the new offset.
      const prev = await slots(e.slug, {
        from: iso(local(change - DAY, 9, before)),
        to: iso(local(change - DAY, 10, before)),
      });
      assert.deepEqual(prev, [iso(local(change - DAY, 9, before))]);
      const onDay = await slots(e.slug, {
        from: iso(local(change, 5, afterOff)),
        to: iso(local(change, 10, afterOff)),
      });
      assert.deepEqual(onDay, [iso(local(change, 9, afterOff))]);
      // 00:00–04:00 local on the change day lasts 3 hours (spring) or 5 hours (autumn): as many hourly slots.
      const night = await slots(e.slug, {
        from: iso(local(change, 0, before)),
        to: iso(local(change, 4, afterOff)),
      });
      const hours = 4 + (before - afterOff) / 60;
      assert.equal(night.length, hours);
      assert.equal(night[0], iso(local(change, 0, before)));
      assert.deepEqual(
        night.map((s) => Date.parse(s) - Date.parse(night[0])),
        Array.from({ length: hours }, (_, i) => i * 3_600_000),
      );
    });

    it('leaves out times inside the minimum notice and past the booking horizon', async () => {
      const e = await newEvent({ durations: [60], minimumNoticeMinutes: 180, bookingHorizonDays: 2 });
      const now = Date.now();
      const got = (await slots(e.slug, { from: iso(now - DAY), to: iso(now + 5 * DAY), duration: 60 })).map(
        Date.parse,
      );
      assert.ok(got.length > 0);
      assert.ok(got[0] >= now + 180 * MINUTE, 'first slot respects the notice');
      assert.ok(got[0] < now + 240 * MINUTE, 'first slot is the first hour after the notice');
      assert.ok(got[got.length - 1] <= Date.now() + 2 * DAY, 'no slot beyond the horizon');
      assert.ok(got[got.length - 1] > now + 2 * DAY - 2 * 3_600_000);
    });

    it('removes times that would overlap a booked meeting or its buffer', async () => {
      const e = await newEvent({ durations: [30], bufferMinutes: 15 });
      const t = at10ms(4);
      assert.equal(
        (await book(e.slug, { start: iso(t), duration: 30, attendees: [attendee()] })).statusCode,
        200,
      );
      const got = await slots(e.slug, { from: iso(t - 60 * MINUTE), to: iso(t + 90 * MINUTE) });
      // 09:30 would run into the 10:00 meeting's start; 10:30 into its buffer (until 10:45).
      assert.deepEqual(got, [iso(t - 60 * MINUTE), iso(t + 60 * MINUTE)]);
    });

    it('refuses a duration not offered, a bad or too long range, and an unknown slug', async () => {
      const e = await newEvent();
      const cases: [string, number, string][] = [
        [`${pub(e.slug, '/slots')}?duration=45`, 400, 'MEET-010'],
        [
          `${pub(e.slug, '/slots')}?from=${iso(Date.now())}&to=${iso(Date.now() + 40 * DAY)}`,
          400,
          'MEET-017',
        ],
        [`${pub(e.slug, '/slots')}?from=${iso(Date.now())}&to=${iso(Date.now() - DAY)}`, 400, 'MEET-017'],
        [`${pub(e.slug, '/slots')}?from=yesterday`, 400, 'VAL-001'],
        [`${pub('no-such-event', '/slots')}`, 404, 'MEET-001'],
      ];
      for (const [url, status, code] of cases) {
        const res = await call(svc.externals, 'GET', url);
        assert.equal(res.statusCode, status, url);
        assert.equal(body(res).error.code, code, url);
      }
    });
  });
});
