/**
 * Issue 25, carrier-aware pacing: a number and a sender group may carry a daily cap (`dailyCap`);
 * the dispatcher hands at most that many messages a day to the carrier (the account's day, in its
 * time zone), holds the rest, still queued, for the next day, and a send job shows when it should
 * finish (`estimatedFinishAt`). The dispatcher is run by hand (no worker loop); "a day passes" moves
 * the account's dispatch state one day back (its counters and holds), which is what the clock
 * moving a day forward does to them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createContext } from '../../src/context.ts';
import { createPool } from '../../src/db/client.ts';
import { addDays, localDate, wallToInstant } from '../../src/util/zoned-time.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/** A fixed-offset zone whose clocks read about hour `h` right now (far from its midnight for h = 12). */
function zoneAtHour(h: number): string {
  let o = (h - new Date().getUTCHours() + 48) % 24;
  if (o > 14) o -= 24;
  // Etc/GMT names carry the inverted sign: Etc/GMT-3 is UTC+3.
  return o === 0 ? 'Etc/GMT' : `Etc/GMT${o > 0 ? '-' : '+'}${Math.abs(o)}`;
}

/** The instant the next day starts in the zone. */
const nextMidnight = (zone: string) => wallToInstant(zone, addDays(localDate(zone, Date.now()), 1), 0);

describe('daily caps per number and per sender group', () => {
  let svc: TestService;
  let seq = 0;
  const mobile = () => `+1202${String(7_100_000 + seq++).padStart(7, '0')}`;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
  });
  after(() => svc.close());

  const api = (acc: TestAccount, method: 'GET' | 'POST' | 'PUT', path: string, json?: unknown) =>
    call(svc.api, method, `/v1/accounts/${acc.accountId}${path}`, { auth: acc.auth, json });
  /** A new account whose days are those of a zone where it is about noon. */
  const account = async () => {
    const acc = await svc.newAccount({ balance: 100 });
    const zone = zoneAtHour(12);
    const res = await api(acc, 'PUT', '', { timezone: zone });
    assert.equal(res.statusCode, 200, res.body);
    return { acc, zone };
  };
  const numbersOf = async (acc: TestAccount) =>
    body(await api(acc, 'GET', '/phonenumbers')).data as { id: string; number: string; dailyCap?: number }[];
  const send = async (acc: TestAccount, n: number, template = 'Hello') => {
    const contacts = Array.from({ length: n }, () => ({ mobile: { number: mobile() } }));
    const res = await api(acc, 'POST', '/messages', { contacts, template });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data.jobId as string;
  };
  const job = async (acc: TestAccount, jobId: string) => body(await api(acc, 'GET', `/jobs/${jobId}`)).data;
  const messagesOf = async (acc: TestAccount, jobId: string) =>
    body(await api(acc, 'GET', `/messages?jobId=${jobId}&limit=100`)).data as {
      id: string;
      status: string;
      phoneNumber: string;
    }[];
  const sentOf = (ms: { status: string }[]) => ms.filter((m) => /^(sent|delivered)$/.test(m.status));
  /** Dispatch rounds as the worker runs them (the caps are the only thing holding messages here). */
  const runDispatch = async (ctx = svc.ctx) => {
    for (let i = 0; i < 3; i++) await dispatch.run(ctx, new AbortController().signal);
  };
  /** When the account's held messages may go (ms), by id. */
  const holds = async (acc: TestAccount) => {
    const { rows } = await svc.db.query<{ id: string; not_before: Date | null }>(
      `SELECT id, not_before FROM messages WHERE account_id = $1 AND outgoing AND status = 'queued'`,
      [acc.accountId],
    );
    return rows.map((r) => r.not_before?.getTime() ?? null);
  };
  /**
   * A day passes for the account: its day counters and the holds of its waiting messages move one
   * day back, as the clock moving one day forward would leave them. (The counters' key is unique:
   * moved in two steps.)
   */
  const aDayPasses = async (acc: TestAccount) => {
    await svc.db.query(`UPDATE daily_sends SET day = day - 100000 WHERE account_id = $1`, [acc.accountId]);
    await svc.db.query(`UPDATE daily_sends SET day = day + 99999 WHERE account_id = $1`, [acc.accountId]);
    await svc.db.query(
      `UPDATE messages SET not_before = not_before - interval '1 day'
        WHERE account_id = $1 AND status = 'queued' AND not_before IS NOT NULL`,
      [acc.accountId],
    );
    await svc.db.query(
      `UPDATE dispatch_cursors SET not_before = not_before - interval '1 day'
        WHERE account_id = $1 AND not_before > '-infinity'`,
      [acc.accountId],
    );
  };

  it('sends exactly 3 of 5 today from a number capped at 3 a day; the other 2 wait, queued, and go the next day', async () => {
    const { acc, zone } = await account();
    const [n] = await numbersOf(acc);
    const put = await api(acc, 'PUT', `/phonenumbers/${n.id}`, { dailyCap: 3 });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(body(put).data.dailyCap, 3);
    assert.equal((await numbersOf(acc))[0].dailyCap, 3, 'returned on read');

    const jobId = await send(acc, 5);
    await runDispatch();
    const today = await messagesOf(acc, jobId);
    assert.equal(sentOf(today).length, 3, JSON.stringify(today));
    assert.deepEqual(
      today.filter((m) => !sentOf([m]).length).map((m) => m.status),
      ['queued', 'queued'],
      'not failed: still queued',
    );
    const j = await job(acc, jobId);
    assert.equal(j.status, 'sending');
    assert.equal(j.failures, 0);
    // They wait for the start of the account's next day (midnight in its time zone).
    assert.deepEqual(await holds(acc), [nextMidnight(zone), nextMidnight(zone)]);
    // More dispatching today sends nothing more.
    await runDispatch();
    assert.equal(sentOf(await messagesOf(acc, jobId)).length, 3);

    await aDayPasses(acc);
    await runDispatch();
    assert.equal(sentOf(await messagesOf(acc, jobId)).length, 5, 'the other 2 went the next day');
    assert.equal((await job(acc, jobId)).status, 'completed');

    // The next day is capped too: its 2 count, so of 3 more sent that day 1 goes, 2 wait again.
    const more = await send(acc, 3);
    await runDispatch();
    assert.equal(sentOf(await messagesOf(acc, more)).length, 1);
    assert.equal((await job(acc, more)).counts.queued, 2);
  });

  it('holds a group’s cap across two numbers of the group', async () => {
    const { acc } = await account();
    const avail = body(await api(acc, 'GET', '/availablephonenumbers?limit=5')).data;
    const take = await api(acc, 'POST', '/phonenumbers', { number: avail[0].number, dailyCap: 100 });
    assert.equal(take.statusCode, 201, take.body);
    assert.equal(body(take).data.dailyCap, 100, 'a cap set when the number is taken');
    const group = body(await api(acc, 'GET', '/groups')).data[0];
    assert.equal(group.phoneNumbers.length, 2);
    const put = await api(acc, 'PUT', `/groups/${group.id}`, { dailyCap: 4 });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(body(put).data.dailyCap, 4);
    assert.equal(body(await api(acc, 'GET', `/groups/${group.id}`)).data.dailyCap, 4, 'returned on read');

    const jobId = await send(acc, 12);
    await runDispatch();
    const ms = await messagesOf(acc, jobId);
    const sent = sentOf(ms);
    assert.equal(sent.length, 4, 'the group’s 4, whichever of its numbers sent them');
    assert.equal(new Set(ms.map((m) => m.phoneNumber)).size, 2, 'the send uses both numbers');
    assert.equal(ms.filter((m) => m.status === 'queued').length, 8);

    // A new group with its own cap: created with it.
    const created = await api(acc, 'POST', '/groups', { name: 'Campaign B', dailyCap: 7 });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(body(created).data.dailyCap, 7);
    // null removes a cap: the rest goes today, under the numbers' own caps.
    const cleared = await api(acc, 'PUT', `/groups/${group.id}`, { dailyCap: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(body(cleared).data.dailyCap, undefined, 'no cap: left out');
    await aDayPasses(acc);
    await runDispatch();
    assert.equal(sentOf(await messagesOf(acc, jobId)).length, 12);
  });

  it('never exceeds a cap with two dispatchers (two services on one database) at once', async () => {
    const { acc } = await account();
    const [n] = await numbersOf(acc);
    assert.equal(
      (await api(acc, 'PUT', `/phonenumbers/${n.id}`, { dailyCap: 7, throughput: 10000 })).statusCode,
      200,
    );
    const jobs = [await send(acc, 40), await send(acc, 40)];
    // A second service: its own pool and providers, as another `sparrow worker` process.
    const other = createContext(svc.config, createPool(svc.config.databaseUrl as string, 10));
    try {
      await Promise.all([runDispatch(), runDispatch(other), runDispatch(), runDispatch(other)]);
    } finally {
      await other.close();
      await other.db.end();
    }
    let sent = 0;
    for (const j of jobs) sent += sentOf(await messagesOf(acc, j)).length;
    assert.equal(sent, 7);
    const { rows } = await svc.db.query<{ used: number }>(
      `SELECT used FROM daily_sends WHERE account_id = $1 AND scope = 'number' AND key_id = $2`,
      [acc.accountId, n.id],
    );
    assert.deepEqual(
      rows.map((r) => r.used),
      [7],
    );
  });

  it('holds the service’s own texts (keyword replies) past the cap too', async () => {
    const { acc, zone } = await account();
    const [n] = await numbersOf(acc);
    assert.equal((await api(acc, 'PUT', `/phonenumbers/${n.id}`, { dailyCap: 1 })).statusCode, 200);
    for (const from of [mobile(), mobile()]) {
      const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from, to: n.number, text: 'HELP' },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    await runDispatch();
    const { rows } = await svc.db.query<{ status: string; not_before: Date | null }>(
      `SELECT status, not_before FROM messages WHERE account_id = $1 AND outgoing ORDER BY id`,
      [acc.accountId],
    );
    assert.equal(rows.length, 2, 'two HELP replies');
    assert.match(rows[0].status, /^(sent|delivered)$/);
    assert.equal(rows[1].status, 'queued');
    assert.equal(rows[1].not_before?.getTime(), nextMidnight(zone));
  });

  it('lets a send whose messages wait for the next day be cancelled: the waiting ones fail JOB-001, refunded', async () => {
    const { acc } = await account();
    const [n] = await numbersOf(acc);
    await api(acc, 'PUT', `/phonenumbers/${n.id}`, { dailyCap: 2 });
    const jobId = await send(acc, 4);
    await runDispatch();
    const balance = async () => body(await api(acc, 'GET', '/balance')).data.balance as number;
    const before = await balance();
    const res = await api(acc, 'PUT', `/jobs/${jobId}/cancel`);
    assert.equal(res.statusCode, 200, res.body);
    const j = await job(acc, jobId);
    assert.equal(j.status, 'cancelled');
    assert.equal(j.counts.cancelled, 2);
    assert.equal(j.estimatedFinishAt, null);
    assert.ok((await balance()) > before, 'the 2 cancelled are refunded');
  });

  describe('with quiet hours held by the service', () => {
    let quiet: TestService;
    before(async () => {
      quiet = await startTestService({ quietHoursEnabled: true });
    });
    after(() => quiet.close());

    it('holds a text past the cap until the next day, and not before 8:00 where its recipient is', async () => {
      const acc = await quiet.newAccount({ balance: 50 });
      // The account's days are New York's; so are its recipients' (+1 202: Washington).
      const zone = 'America/New_York';
      const q = (method: 'GET' | 'PUT' | 'POST', path: string, json?: unknown) =>
        call(quiet.api, method, `/v1/accounts/${acc.accountId}${path}`, { auth: acc.auth, json });
      assert.equal((await q('PUT', '', { timezone: zone })).statusCode, 200);
      const [n] = body(await q('GET', '/phonenumbers')).data;
      assert.equal((await q('PUT', `/phonenumbers/${n.id}`, { dailyCap: 1 })).statusCode, 200);
      const contacts = [{ mobile: { number: mobile() } }, { mobile: { number: mobile() } }];
      const sent = await q('POST', '/messages', { contacts, template: 'Hi' });
      assert.equal(sent.statusCode, 200, sent.body);
      await runDispatch(quiet.ctx);
      const { rows } = await quiet.db.query<{ not_before: Date }>(
        `SELECT not_before FROM messages WHERE account_id = $1 AND outgoing AND status = 'queued'`,
        [acc.accountId],
      );
      assert.equal(rows.length, 1);
      const eight = wallToInstant(zone, addDays(localDate(zone, Date.now()), 1), 8 * 60);
      assert.equal(rows[0].not_before.getTime(), eight, 'tomorrow 8:00 in New York, not its midnight');
    });
  });

  describe('validation and access', () => {
    let acc: TestAccount;
    let numberId: string;
    let groupId: string;
    before(async () => {
      ({ acc } = await account());
      numberId = (await numbersOf(acc))[0].id;
      groupId = body(await api(acc, 'GET', '/groups')).data[0].id;
    });

    it('refuses a cap that is not a whole number from 1 to 10,000,000 with 400 in the error envelope', async () => {
      // (The validator coerces like every body's: "7" is 7; these are not numbers, or out of range.)
      for (const dailyCap of [0, -1, 1.5, 'x', '2.5', 10_000_001, 1e12, { n: 3 }]) {
        for (const [method, path] of [
          ['PUT', `/phonenumbers/${numberId}`],
          ['PUT', `/groups/${groupId}`],
          ['POST', '/groups'],
        ] as const) {
          const res = await api(acc, method, path, { name: 'Capped', dailyCap });
          assert.equal(res.statusCode, 400, `${method} ${path} ${JSON.stringify(dailyCap)}: ${res.body}`);
          const b = body(res);
          assert.equal(b.success, false);
          assert.equal(b.error.code, 'VAL-001');
          assert.match(b.error.message, /dailyCap/);
        }
      }
      assert.equal((await numbersOf(acc))[0].dailyCap, undefined, 'nothing was changed');
      const ok = await api(acc, 'PUT', `/phonenumbers/${numberId}`, { dailyCap: 10_000_000 });
      assert.equal(ok.statusCode, 200, ok.body);
      const cleared = await api(acc, 'PUT', `/phonenumbers/${numberId}`, { dailyCap: null });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(body(cleared).data.dailyCap, undefined);
    });

    it('answers 404 for another account’s number or group, and 401 without a token', async () => {
      const { acc: other } = await account();
      const theirNumber = (await numbersOf(other))[0].id;
      const theirGroup = body(await api(other, 'GET', '/groups')).data[0].id;
      const n = await api(acc, 'PUT', `/phonenumbers/${theirNumber}`, { dailyCap: 5 });
      assert.equal(n.statusCode, 404, n.body);
      assert.equal(body(n).success, false);
      assert.equal(body(n).error.code, 'NUM-001');
      const g = await api(acc, 'PUT', `/groups/${theirGroup}`, { dailyCap: 5 });
      assert.equal(g.statusCode, 404, g.body);
      assert.equal(body(g).error.code, 'GRP-001');
      assert.equal((await numbersOf(other))[0].dailyCap, undefined, 'theirs is unchanged');
      const anonymous = await call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}/phonenumbers/${numberId}`, {
        json: { dailyCap: 5 },
      });
      assert.equal(anonymous.statusCode, 401, anonymous.body);
      assert.equal(body(anonymous).success, false);
    });
  });

  describe('a send job’s estimated finish time', () => {
    it('is from the rate and the sends ahead on the same number, and null once the send is done', async () => {
      const { acc } = await account();
      const [n] = await numbersOf(acc);
      assert.equal((await api(acc, 'PUT', `/phonenumbers/${n.id}`, { throughput: 1 })).statusCode, 200);
      const first = await send(acc, 5);
      const second = await send(acc, 3);
      const before = Date.now();
      const a = await job(acc, first);
      const b = await job(acc, second);
      const afterwards = Date.now();
      // 5 messages at 1 a second; the second send waits for the first's 5, then its own 3.
      const eta = (j: { estimatedFinishAt: string }) => new Date(j.estimatedFinishAt).getTime();
      assert.ok(
        eta(a) >= before + 5_000 - 1_000 && eta(a) <= afterwards + 5_000 + 1_000,
        a.estimatedFinishAt,
      );
      assert.ok(
        eta(b) >= before + 8_000 - 1_000 && eta(b) <= afterwards + 8_000 + 1_000,
        b.estimatedFinishAt,
      );
      // The list leaves it out (it is worked out for one job at a time).
      const listed = body(await api(acc, 'GET', '/jobs')).data;
      assert.ok(listed.every((j: object) => !('estimatedFinishAt' in j)));

      assert.equal((await api(acc, 'PUT', `/phonenumbers/${n.id}`, { throughput: 10000 })).statusCode, 200);
      await runDispatch();
      const done = await job(acc, first);
      assert.equal(done.status, 'completed');
      assert.equal(done.estimatedFinishAt, null);
      assert.ok('estimatedFinishAt' in done, 'present, as null');
    });

    it('waits for the next day when the cap is used up: its start, plus what is left at the rate', async () => {
      const { acc, zone } = await account();
      const [n] = await numbersOf(acc);
      await api(acc, 'PUT', `/phonenumbers/${n.id}`, { dailyCap: 3, throughput: 1 });
      const jobId = await send(acc, 5);
      // Nothing sent yet: 3 today (from now, at 1 a second), 2 from tomorrow's start.
      const fresh = new Date((await job(acc, jobId)).estimatedFinishAt).getTime();
      assert.ok(fresh >= nextMidnight(zone) + 2_000 && fresh <= nextMidnight(zone) + 3_000, String(fresh));
      await api(acc, 'PUT', `/phonenumbers/${n.id}`, { throughput: 10000 });
      await runDispatch();
      const j = await job(acc, jobId);
      assert.equal(j.counts.queued, 2);
      const eta = new Date(j.estimatedFinishAt).getTime();
      assert.ok(eta >= nextMidnight(zone) && eta <= nextMidnight(zone) + 1_000, j.estimatedFinishAt);
      // 8 more behind the 2 held, at 3 a day: 3, 3 and 3 from tomorrow, the last on the fourth day.
      const later = await send(acc, 8);
      const dayAfter = wallToInstant(zone, addDays(localDate(zone, Date.now()), 4), 0);
      const eta2 = new Date((await job(acc, later)).estimatedFinishAt).getTime();
      assert.ok(
        eta2 >= dayAfter && eta2 <= dayAfter + 1_000,
        `${new Date(eta2).toISOString()} vs ${new Date(dayAfter).toISOString()}`,
      );
    });
  });
});
