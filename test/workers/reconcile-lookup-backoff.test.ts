/**
 * A dead worker's groups in flight whose lookups at the carrier fail (reconcile.ts): each failed
 * round backs the group off on LOOKUP_BACKOFF (no worker asks again before it passes), what was
 * found is recorded at once, other groups are not held back, and after LOOKUP_BACKOFF.maxAttempts
 * failed rounds DELIVERY_GUARANTEE decides. The test drives the dispatch rounds itself; where a
 * backoff would be waited for, it makes the group due instead (claimed_until in the past).
 */
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { type AppContext, createContext } from '../../src/context.ts';
import { createPool } from '../../src/db/client.ts';
import { dispatchBatch } from '../../src/domain/send/dispatch/dispatch-batch.ts';
import { GROUP_SIZE } from '../../src/domain/send/dispatch/record.ts';
import { LOOKUP_BACKOFF } from '../../src/domain/send/dispatch/settle-uncertain.ts';
import type { Provider } from '../../src/providers/types.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, type TestService } from '../helpers.ts';
import { type CarrierService, outgoing, send, withCarrier } from '../support/twilio-carrier.ts';

const MAX = LOOKUP_BACKOFF.maxAttempts as number;

/** What the rounds threw (a lookup that cannot be made must not fail a round). */
const roundErrors: string[] = [];

/** One dispatch round of this worker, driven by the test. */
async function round(ctx: AppContext): Promise<void> {
  await dispatch.run(ctx, new AbortController().signal).catch((err: Error) => {
    roundErrors.push(err.message);
  });
}

/** Another worker: its own pool and providers, on the same database, its lines to `log`. */
function otherWorker(svc: TestService, log: (msg: string) => void): AppContext {
  const pool = createPool(svc.config.databaseUrl as string, 4);
  const ctx = createContext(svc.config, pool, log);
  const close = ctx.close;
  ctx.close = async () => {
    await close();
    await pool.end();
  };
  return ctx;
}

/**
 * A worker hands the account's `n` queued messages to the carrier and dies before any answer: the
 * carrier holds those `held` says (their answer never came), the others never arrived. Returns
 * once its groups' lease has passed, leaving them to be reconciled.
 */
async function workerDies(t: CarrierService, n: number, held: (to: string) => boolean): Promise<void> {
  // One batch takes them all: no number's one-second window holds any back.
  await t.svc.db.query('UPDATE phone_numbers SET throughput_mps = 1000 WHERE account_id = $1', [
    t.acc.accountId,
  ]);
  const pool = createPool(t.svc.config.databaseUrl as string, 4);
  const dying = createContext(t.svc.config, pool);
  const handed: string[] = [];
  const standIn: Provider = {
    name: 'twilio',
    send: (m) => {
      handed.push(m.to);
      if (held(m.to)) t.carrier.hold({ to: m.to, from: m.from, body: m.body });
      return new Promise(() => {});
    },
    start: async () => {},
    close: async () => {},
  };
  const original = dying.providers.get.bind(dying.providers);
  dying.providers.get = (name) => (name === 'twilio' ? standIn : original(name));
  void dispatchBatch(dying).catch(() => {});
  await eventually(async () => handed.length === n);
  await pool.end().catch(() => {});
  await dying.close();
  await eventually(async () => {
    const { rows } = await t.svc.db.query<{ passed: boolean }>(
      'SELECT coalesce(bool_and(claimed_until < now()), false) AS passed FROM dispatch_inflight',
    );
    return rows[0].passed;
  });
}

/** The groups left in flight, oldest first. */
async function groups(svc: TestService) {
  const { rows } = await svc.db.query<{ ids: string[]; lookup_failures: number; backed_off: boolean }>(
    `SELECT ids::text[] AS ids, lookup_failures, claimed_until > now() AS backed_off
     FROM dispatch_inflight ORDER BY id`,
  );
  return rows;
}

/** PostgreSQL's clock: what the rounds' backoffs are reckoned from. */
async function dbNow(svc: TestService): Promise<Date> {
  const { rows } = await svc.db.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return rows[0].now;
}

/**
 * The group's failed round (begun at `since`, by PostgreSQL's clock) backed it off by at least
 * `seconds`; then the test holds it there for an hour, so that the rounds it runs next fall within
 * the backoff however slow the machine is (the backoff's length was checked here, not by racing it).
 */
async function backedOffAtLeast(svc: TestService, since: Date, seconds: number): Promise<void> {
  const { rows } = await svc.db.query<{ until: Date }>(
    'SELECT claimed_until AS until FROM dispatch_inflight',
  );
  assert.ok(rows.length > 0, 'a group is in flight');
  for (const r of rows)
    assert.ok(
      r.until.getTime() >= since.getTime() + seconds * 1000,
      `backed off until ${r.until.toISOString()}, at least ${seconds} s after ${since.toISOString()}`,
    );
  await svc.db.query(`UPDATE dispatch_inflight SET claimed_until = claimed_until + interval '1 hour'`);
}

/** As if the group's backoff had been waited for. */
async function backoffPassed(svc: TestService): Promise<void> {
  await svc.db.query(`UPDATE dispatch_inflight SET claimed_until = now() - interval '1 millisecond'`);
}

async function balance(t: CarrierService): Promise<number> {
  return body(await call(t.svc.api, 'GET', `/v1/accounts/${t.acc.accountId}/balance`, { auth: t.acc.auth }))
    .data.balance;
}

const workers: AppContext[] = [];
after(async () => {
  for (const w of workers) await w.close();
});
afterEach(() => {
  assert.deepEqual(roundErrors.splice(0), [], 'no round failed');
});

/**
 * N messages handed over by a worker that died, none of which reached the carrier, whose lookups
 * all fail: one round asks once per message, rounds within the backoff (of this worker and of
 * another) ask nothing, each later round after the group's backoff asks once more per message, and
 * after MAX failed rounds the group is dropped. Answers the balance right after the send.
 */
async function lookupsFailToTheBound(t: CarrierService, mobiles: string[]): Promise<number> {
  const N = mobiles.length;
  const lookups = () => t.carrier.total(t.carrier.lookups);
  const lines: string[] = [];
  t.svc.ctx.log = (msg) => lines.push(msg);
  const failedRounds = () => lines.filter((l) => /lookup\(s\) failed/.test(l)).length;
  await send(t.svc, t.acc, mobiles, 'Your code is 3141');
  const charged = await balance(t);
  await workerDies(t, N, () => false);

  const since = await dbNow(t.svc);
  await round(t.svc.ctx);
  assert.equal(lookups(), N, 'each message looked up once');
  let [g] = await groups(t.svc);
  assert.equal(g.lookup_failures, 1);
  assert.equal(g.ids.length, N);
  await backedOffAtLeast(t.svc, since, LOOKUP_BACKOFF.baseMs / 1000);

  // Before the backoff has passed neither this worker nor another asks again.
  const other = otherWorker(t.svc, (msg) => lines.push(msg));
  workers.push(other);
  for (const ctx of [t.svc.ctx, other, t.svc.ctx, other]) await round(ctx);
  assert.ok((await groups(t.svc))[0].backed_off, 'the rounds ran within the backoff');
  assert.equal(lookups(), N, 'not looked up again before its backoff');
  assert.equal(failedRounds(), 1, 'one line per failed round');

  for (let failures = 2; failures <= MAX; failures++) {
    await backoffPassed(t.svc);
    await round(failures % 2 === 0 ? other : t.svc.ctx);
    assert.equal(lookups(), N * failures, `round ${failures}: each message looked up once more`);
    if (failures === MAX) break;
    [g] = await groups(t.svc);
    assert.equal(g.lookup_failures, failures);
    assert.ok(g.backed_off);
    assert.equal(g.ids.length, N);
  }
  assert.deepEqual(await groups(t.svc), [], 'settled after the bound');
  assert.equal(failedRounds(), MAX, 'one line per failed round');
  return charged;
}

describe("a dead worker's group whose lookups keep failing, at-most-once", () => {
  const mobiles = Array.from({ length: 3 }, (_, i) => `+1202${String(5_600_000 + i)}`);
  const t = withCarrier(
    { lookup: () => 'fail' },
    { deliveryGuarantee: 'at-most-once', dispatchLeaseSeconds: 1 },
  );

  it(`is asked again only on its backoff; after ${MAX} failed rounds its messages fail with MSG-020, refunded`, async () => {
    const before = await balance(t);
    await lookupsFailToTheBound(t, mobiles);

    for (const m of await outgoing(t.svc, t.acc)) {
      assert.equal(m.status, 'failed', m.to_number);
      assert.equal(m.error_code, 'MSG-020', m.to_number);
      assert.equal(m.price, 0, m.to_number);
    }
    assert.equal(await balance(t), before, 'every price given back');
    assert.equal(t.carrier.total(t.carrier.submissions), 0, 'nothing sent to the carrier');
    await round(t.svc.ctx);
    assert.equal(t.carrier.total(t.carrier.lookups), mobiles.length * MAX, 'never asked again');
    assert.equal(t.carrier.total(t.carrier.submissions), 0);
  });
});

describe("a dead worker's group whose lookups keep failing, at-least-once", () => {
  const mobiles = Array.from({ length: 3 }, (_, i) => `+1202${String(5_700_000 + i)}`);
  const t = withCarrier(
    { lookup: () => 'fail' },
    { deliveryGuarantee: 'at-least-once', dispatchLeaseSeconds: 1 },
  );

  it(`is asked again only on its backoff; after ${MAX} failed rounds its messages are sent again, once`, async () => {
    const charged = await lookupsFailToTheBound(t, mobiles);

    const rows = await eventually(async () => {
      await round(t.svc.ctx);
      const rows = await outgoing(t.svc, t.acc);
      return rows.every((r) => r.status === 'sent') && rows;
    });
    assert.deepEqual(t.carrier.created.map((c) => c.to).sort(), [...mobiles].sort(), 'each sent once');
    const sidOf = new Map(t.carrier.created.map((c) => [c.to, c.sid]));
    for (const r of rows) assert.equal(r.provider_message_id, sidOf.get(r.to_number), r.to_number);
    assert.equal(t.carrier.total(t.carrier.lookups), mobiles.length * MAX, 'never asked again');
    assert.equal(await balance(t), charged, 'charged once, nothing refunded');
  });
});

describe("a dead worker's groups whose lookups fail at first", () => {
  // Two groups (GROUP_SIZE, 128, and 12). The carrier holds every other message (their answer never
  // came); the first lookup of every third message of the first group fails, every other lookup is
  // answered.
  const N = GROUP_SIZE + 12;
  const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_800_000 + i)}`);
  const held = new Set(mobiles.filter((_, i) => i % 2 === 0));
  const failOnce = new Set<string>();
  const t = withCarrier(
    { lookup: (to, k) => (failOnce.has(to) && k === 0 ? 'fail' : 'ok') },
    // The dying worker's one batch takes all N: a range of a provider not seen yet takes
    // DISPATCH_IN_FLIGHT / 4 (domain/send/dispatch/grain.ts).
    { dispatchLeaseSeconds: 1, dispatchInFlight: 4 * N },
  );

  it('records what was found at once, holds back no other group, and settles the rest with nothing doubled', async () => {
    await send(t.svc, t.acc, mobiles, 'Your code is 2718');
    await workerDies(t, N, (to) => held.has(to));
    const before = await groups(t.svc);
    const since = await dbNow(t.svc);
    assert.equal(before.length, 2, 'two groups in flight');
    const toOf = new Map((await outgoing(t.svc, t.acc)).map((m) => [m.id, m.to_number]));
    const unknown = before[0].ids.filter((_, k) => k % 3 === 0);
    for (const id of unknown) failOnce.add(toOf.get(id) as string);
    const sidOf = new Map(t.carrier.created.map((c) => [c.to, c.sid]));

    await round(t.svc.ctx);
    const [g, ...rest] = await groups(t.svc);
    assert.deepEqual(rest, [], 'the second group is settled though the first could not be');
    assert.deepEqual(
      [...g.ids].sort(),
      [...unknown].sort(),
      'the first keeps only those whose lookup failed',
    );
    assert.equal(g.lookup_failures, 1);
    await backedOffAtLeast(t.svc, since, LOOKUP_BACKOFF.baseMs / 1000);
    // Found at the carrier in that round, in either group, and recorded at once with its id.
    for (const m of await outgoing(t.svc, t.acc)) {
      if (!held.has(m.to_number) || failOnce.has(m.to_number)) continue;
      assert.equal(m.status, 'sent', m.to_number);
      assert.equal(m.provider_message_id, sidOf.get(m.to_number), m.to_number);
    }
    assert.equal(t.carrier.total(t.carrier.lookups), N);
    await round(t.svc.ctx);
    assert.equal(t.carrier.total(t.carrier.lookups), N, 'not asked again before its backoff');

    await backoffPassed(t.svc);
    const rows = await eventually(async () => {
      await round(t.svc.ctx);
      const rows = await outgoing(t.svc, t.acc);
      return rows.every((r) => r.status === 'sent') && rows;
    });
    assert.deepEqual(await groups(t.svc), []);
    // Each recipient once at the carrier: the held ones were found, never resent; the others sent once.
    assert.deepEqual(t.carrier.created.map((c) => c.to).sort(), [...mobiles].sort());
    const finalSid = new Map(t.carrier.created.map((c) => [c.to, c.sid]));
    for (const r of rows) assert.equal(r.provider_message_id, finalSid.get(r.to_number), r.to_number);
    for (const to of mobiles)
      assert.equal(t.carrier.lookups.get(to), failOnce.has(to) ? 2 : 1, `lookups of ${to}`);
  });
});
