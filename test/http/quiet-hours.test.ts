import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { numberZonesLateral } from '../../src/db/queries/phone-zones.ts';
import { handleTriggers } from '../../src/domain/workflows/handle-triggers.ts';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { addDays, localDate, offsetMinutes, wallToInstant } from '../../src/util/zoned-time.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const HOUR = 3_600_000;

/** A fixed-offset zone whose clocks read hour `h` (and the current minute) right now. */
function zoneAtHour(h: number): string {
  let o = (h - new Date().getUTCHours() + 48) % 24;
  if (o > 14) o -= 24;
  // Etc/GMT names carry the inverted sign: Etc/GMT-3 is UTC+3.
  return o === 0 ? 'Etc/GMT' : `Etc/GMT${o > 0 ? '-' : '+'}${Math.abs(o)}`;
}

/** Mobile numbers around the world and the time zone their prefix maps to (libphonenumber's data). */
const AROUND_THE_WORLD = [
  { number: '+18087654321', zone: 'Pacific/Honolulu' },
  { number: '+12018100001', zone: 'America/New_York' },
  { number: '+5511987654321', zone: 'America/Sao_Paulo' },
  { number: '+4915112345678', zone: 'Europe/Berlin' },
  { number: '+919812345678', zone: 'Asia/Calcutta' },
  { number: '+819012345678', zone: 'Asia/Tokyo' },
  { number: '+61412345678', zone: 'Australia/Sydney' },
];

const localHour = (zone: string, ms = Date.now()) =>
  Math.floor(((((ms + offsetMinutes(zone, ms) * 60_000) % 86_400_000) + 86_400_000) % 86_400_000) / HOUR);

/** The next 8:00 in the zone for an instant in its quiet hours. */
function nextEight(zone: string, ms = Date.now()): number {
  const today = localDate(zone, ms);
  return wallToInstant(zone, localHour(zone, ms) >= 21 ? addDays(today, 1) : today, 8 * 60);
}

describe('quiet hours', () => {
  let svc: TestService;
  let seq = 0;
  before(async () => {
    svc = await startTestService({ quietHoursEnabled: true });
  });
  after(() => svc.close());

  /** When a marketing text to `number` sent at `at` may go (null: at once), as the accept statement decides. */
  const quietUntil = async (number: string, at: string, fallback = 'UTC') => {
    const { rows } = await svc.db.query<{ until: Date | null }>(
      `SELECT sparrow_quiet_until(pz.zones, $2, $3) AS until
       FROM (SELECT $1::text AS n) x LEFT JOIN LATERAL ${numberZonesLateral('x.n')} pz ON true`,
      [number, fallback, at],
    );
    return rows[0].until?.toISOString() ?? null;
  };

  it('holds a text until 8:00 in the recipient’s zone, across a DST change', async () => {
    const ny = '+12018100001';
    // 2026-03-08 is the spring-forward night in New York (02:00 EST → 03:00 EDT).
    assert.equal(await quietUntil(ny, '2026-03-07T16:00:00Z'), null, '11:00 EST');
    assert.equal(
      await quietUntil(ny, '2026-03-08T02:30:00Z'),
      '2026-03-08T12:00:00.000Z',
      '21:30 EST → 08:00 EDT',
    );
    assert.equal(await quietUntil(ny, '2026-03-08T06:00:00Z'), '2026-03-08T12:00:00.000Z', '01:00 EST');
    assert.equal(await quietUntil(ny, '2026-03-08T12:00:00Z'), null, '08:00 EDT exactly');
    assert.equal(await quietUntil(ny, '2026-03-09T00:59:00Z'), null, '20:59 EDT');
    assert.equal(
      await quietUntil('+18087654321', '2026-11-22T07:00:00Z'),
      '2026-11-22T18:00:00.000Z',
      '21:00 HST',
    );
    assert.equal(await quietUntil('+819012345678', '2026-11-22T07:00:00Z'), null, '16:00 in Tokyo');
    assert.equal(await quietUntil('+819012345678', '2026-11-22T16:00:00Z'), '2026-11-22T23:00:00.000Z');
  });

  it('waits for every zone of a prefix that spans several, and falls back to the account’s zone', async () => {
    // Alaska's 907 covers Anchorage (UTC-9) and Adak (UTC-10): 07:00Z is 21:00 in Adak, so 8:00 there.
    assert.equal(await quietUntil('+19075550123', '2026-11-22T07:00:00Z'), '2026-11-22T18:00:00.000Z');
    // +1 500 is non-geographic (every NANP zone): the account's zone decides.
    assert.equal(
      await quietUntil('+15005550006', '2026-11-22T03:00:00Z', 'Europe/Berlin'),
      '2026-11-22T07:00:00.000Z',
    );
    assert.equal(await quietUntil('+15005550006', '2026-11-22T12:00:00Z', 'Europe/Berlin'), null);
  });

  async function campaignTo(numbers: string[], accountZone = 'UTC') {
    const acc = await svc.newAccount({ balance: 50 });
    await svc.db.query('UPDATE accounts SET timezone = $2 WHERE id = $1', [acc.accountId, accountZone]);
    const base = `/v1/accounts/${acc.accountId}`;
    const list = body(
      await call(svc.api, 'POST', `${base}/lists`, { auth: acc.auth, json: { name: `L${seq++}` } }),
    ).data;
    const contactIds: string[] = [];
    for (const mobile of numbers) {
      const res = await call(svc.api, 'POST', `${base}/contacts`, { auth: acc.auth, json: { mobile } });
      assert.equal(res.statusCode, 201, res.body);
      contactIds.push(body(res).data[0].id);
    }
    await call(svc.api, 'POST', `${base}/lists/${list.id}/contacts`, {
      auth: acc.auth,
      json: { contactIds },
    });
    const groups = body(await call(svc.api, 'GET', `${base}/groups`, { auth: acc.auth })).data;
    const res = await call(svc.api, 'POST', `${base}/quickcampaigns`, {
      auth: acc.auth,
      json: { name: 'Sale', groupId: groups[0].id, listId: list.id, message: { message: 'Sale!' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    return { acc, jobId: body(res).data.job.id as string };
  }

  const messagesOf = async (acc: TestAccount, jobId: string) =>
    new Map<string, { status: string; id: string }>(
      body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages?jobId=${jobId}`, {
          auth: acc.auth,
        }),
      ).data.map((m: { id: string; status: string; contact: { mobile: { number: string } } }) => [
        m.contact.mobile.number,
        m,
      ]),
    );
  const runDispatch = async () => {
    for (let i = 0; i < 3; i++) await dispatch.run(svc.ctx, new AbortController().signal);
  };

  it('queues and charges a campaign at once, sends it where it is day and holds it where it is night', async () => {
    // Clear of the 8:00 and 21:00 edges while the test runs.
    const day = AROUND_THE_WORLD.find((p) => localHour(p.zone) >= 9 && localHour(p.zone) < 19);
    const night = AROUND_THE_WORLD.find((p) => localHour(p.zone) >= 22 || localHour(p.zone) < 6);
    assert.ok(day && night, 'the seven zones leave no gap of more than five hours');
    const { acc, jobId } = await campaignTo([day.number, night.number]);
    await runDispatch();

    const messages = await messagesOf(acc, jobId);
    assert.match(messages.get(day.number)?.status ?? '', /^(sent|delivered)$/);
    assert.equal(messages.get(night.number)?.status, 'queued');
    const { rows } = await svc.db.query<{ not_before: Date; price: number }>(
      'SELECT not_before, price::float8 AS price FROM messages WHERE account_id = $1 AND id = $2',
      [acc.accountId, messages.get(night.number)?.id],
    );
    assert.equal(rows[0].not_before.getTime(), nextEight(night.zone), `8:00 in ${night.zone}`);
    assert.ok(rows[0].price > 0, 'charged when queued');

    // Time passes: the hold ends, and the held message goes.
    await svc.db.query(
      `WITH m AS (UPDATE messages SET not_before = now() - interval '1 second'
                  WHERE account_id = $1 AND job_id = $2 AND not_before IS NOT NULL)
       UPDATE dispatch_cursors SET not_before = now() - interval '1 second'
       WHERE account_id = $1 AND job_id = $2 AND not_before > '-infinity'`,
      [acc.accountId, jobId],
    );
    await runDispatch();
    assert.match((await messagesOf(acc, jobId)).get(night.number)?.status ?? '', /^(sent|delivered)$/);
  });

  it('holds a number whose zone the prefix does not tell by the account’s zone', async () => {
    const { acc, jobId } = await campaignTo(['+15005550006'], zoneAtHour(2));
    await runDispatch();
    assert.equal((await messagesOf(acc, jobId)).get('+15005550006')?.status, 'queued');
    const daytime = await campaignTo(['+15005550006'], zoneAtHour(12));
    await runDispatch();
    assert.match(
      (await messagesOf(daytime.acc, daytime.jobId)).get('+15005550006')?.status ?? '',
      /^(sent|delivered)$/,
    );
  });

  describe('automation and direct sends', () => {
    // +1 500 is non-geographic: the account's zone decides, and the account's clocks read 3 a.m.
    const NIGHT_NUMBER = '+15005550006';

    async function nightAccount() {
      const acc = await svc.newAccount({ balance: 50 });
      const zone = zoneAtHour(3);
      await svc.db.query('UPDATE accounts SET timezone = $2 WHERE id = $1', [acc.accountId, zone]);
      return { acc, zone, base: `/v1/accounts/${acc.accountId}` };
    }
    /** The outgoing, non-system messages to the number: hold (epoch ms, or null) and status. */
    const outgoing = async (acc: TestAccount) => {
      const { rows } = await svc.db.query<{ not_before: Date | null; status: string; body: string }>(
        `SELECT not_before, status, body FROM messages
          WHERE account_id = $1 AND outgoing AND NOT system AND to_number = $2 ORDER BY created_at, id`,
        [acc.accountId, NIGHT_NUMBER],
      );
      return rows.map((r) => ({ hold: r.not_before?.getTime() ?? null, status: r.status, body: r.body }));
    };
    const runEngine = async () => {
      while ((await handleTriggers(svc.db, 100, svc.ctx.log)) > 0);
      while (
        (await runDueWorkflows(svc.db, 100, svc.ctx.log, {
          quietHours: svc.ctx.config.quietHoursEnabled,
          prices: svc.ctx.config.priceTable,
        })) > 0
      );
    };

    it('a workflow message to a recipient at 3 a.m. waits until 8:00 there', async () => {
      const { acc, zone, base } = await nightAccount();
      const wf = await call(svc.api, 'POST', `${base}/workflows`, {
        auth: acc.auth,
        json: {
          name: 'Night flow',
          versions: [
            {
              activate: true,
              definition: {
                nodes: [
                  { id: 't', type: { id: 'trigger.manual' } },
                  { id: 'm', type: { id: 'action.send-message' }, config: { message: 'Good morning' } },
                ],
                edges: [{ source: 't', target: 'm' }],
              },
            },
          ],
        },
      });
      assert.equal(wf.statusCode, 201, wf.body);
      const c = await call(svc.api, 'POST', `${base}/contacts`, {
        auth: acc.auth,
        json: { mobile: NIGHT_NUMBER },
      });
      const enrolled = await call(svc.api, 'POST', `${base}/workflows/${body(wf).data.id}/enrollments`, {
        auth: acc.auth,
        json: { contactId: body(c).data[0].id },
      });
      assert.equal(enrolled.statusCode, 201, enrolled.body);
      await runEngine();
      await runDispatch();
      assert.deepEqual(await outgoing(acc), [
        { hold: nextEight(zone), status: 'queued', body: 'Good morning' },
      ]);
    });

    it('a drip message to a recipient at 3 a.m. waits until 8:00 there', async () => {
      const { acc, zone, base } = await nightAccount();
      const drip = await call(svc.api, 'POST', `${base}/dripcampaigns`, {
        auth: acc.auth,
        json: {
          name: 'Night drip',
          trigger: { type: 'contact-created' },
          messages: [{ message: 'Welcome' }],
          activate: true,
        },
      });
      assert.equal(drip.statusCode, 201, drip.body);
      const c = await call(svc.api, 'POST', `${base}/contacts`, {
        auth: acc.auth,
        json: { mobile: NIGHT_NUMBER },
      });
      assert.equal(c.statusCode, 201, c.body);
      await runEngine();
      await runDispatch();
      assert.deepEqual(await outgoing(acc), [{ hold: nextEight(zone), status: 'queued', body: 'Welcome' }]);
    });

    it('a direct send goes at once; with `quietHours: true` it waits until 8:00; a HELP reply is not held', async () => {
      const { acc, zone, base } = await nightAccount();
      const send = (json: object) =>
        call(svc.api, 'POST', `${base}/messages`, {
          auth: acc.auth,
          json: { contacts: [{ mobile: { number: NIGHT_NUMBER } }], ...json },
        });
      const direct = await send({ template: 'Direct' });
      assert.equal(direct.statusCode, 200, direct.body);
      const marketing = await send({ template: 'Marketing', quietHours: true });
      assert.equal(marketing.statusCode, 200, marketing.body);
      const bad = await send({ template: 'x', quietHours: 'yes' });
      assert.equal(bad.statusCode, 400, bad.body);
      await runDispatch();
      const [first, second] = await outgoing(acc);
      assert.equal(first.body, 'Direct');
      assert.equal(first.hold, null);
      assert.match(first.status, /^(sent|delivered)$/);
      assert.deepEqual(second, { hold: nextEight(zone), status: 'queued', body: 'Marketing' });

      // A reply to an inbound text (HELP's auto-reply) is not held either.
      const { rows } = await svc.db.query(
        `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
        [acc.accountId],
      );
      const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: NIGHT_NUMBER, to: rows[0].number, text: 'HELP' },
      });
      assert.equal(inbound.statusCode, 200, inbound.body);
      const replies = await svc.db.query<{ not_before: Date | null }>(
        `SELECT not_before FROM messages WHERE account_id = $1 AND outgoing AND system AND to_number = $2`,
        [acc.accountId, NIGHT_NUMBER],
      );
      assert.equal(replies.rows.length, 1);
      assert.equal(replies.rows[0].not_before, null);
    });
  });
});
