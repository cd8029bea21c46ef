import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { AppContext } from '../../src/context.ts';
import { runPartitionMaintenance } from '../../src/domain/housekeeping/maintain-partitions.ts';
import { call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { applyMigrations, createScratchDatabase, type ScratchDatabase } from '../support/migration-db.ts';

/** The first day (UTC) of the month `back` months before this one. */
function monthsAgo(back: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1, 12));
}

const partName = (table: string, d: Date) =>
  `${table}_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

/** SQL of a UUIDv7 made at $2: its 48-bit millisecond timestamp, version 7, random bits after. */
const MS_HEX = `lpad(to_hex((extract(epoch FROM $2::timestamptz) * 1000)::bigint), 12, '0')`;
const OLD_ID = `(substr(${MS_HEX}, 1, 8) || '-' || substr(${MS_HEX}, 9, 4) || '-7' || substr(gen_random_uuid()::text, 16))::uuid`;

describe('time partitions of messages, events and webhook deliveries', () => {
  let svc: TestService;
  let acc: TestAccount;

  before(async () => {
    svc = await startTestService();
    acc = await svc.newAccount();
  });
  after(async () => {
    await svc.close();
  });

  /** Stores a message created at `at` (as written then) and answers its id. */
  async function oldMessage(at: Date, status = 'delivered'): Promise<string> {
    const { rows } = await svc.db.query<{ id: string }>(
      `INSERT INTO messages (account_id, id, from_number, to_number, outgoing, body, encoding, segments, status, created_at, updated_at)
       VALUES ($1, ${OLD_ID}, '+14155550100', '+14155550199', true, 'old', 'GSM-7', 1, $3, $2, $2) RETURNING id`,
      [acc.accountId, at, status],
    );
    return rows[0].id;
  }

  const home = async (id: string) =>
    (
      await svc.db.query<{ t: string }>('SELECT tableoid::regclass::text AS t FROM messages WHERE id = $1', [
        id,
      ])
    ).rows[0]?.t;

  const read = async (id: string) =>
    (await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages/${id}`, { auth: acc.auth }))
      .statusCode;

  /** One maintenance round with this retention (days; 0: keep for ever). */
  const round = (retentionDays: number, ctx: AppContext = svc.ctx) =>
    runPartitionMaintenance({
      ...ctx,
      config: { ...ctx.config, partitions: { monthsAhead: 3, retentionDays } },
    });

  it('holds this month and the months ahead from the start', async () => {
    await round(0);
    const { rows } = await svc.db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = ANY ('{messages,events,webhook_deliveries}'::regclass[])`,
    );
    const names = new Set(rows.map((r) => r.name));
    for (const table of ['messages', 'events', 'webhook_deliveries']) {
      assert.ok(names.has(`${table}_default`), `${table}_default`);
      for (const ahead of [0, 1, 2, 3]) assert.ok(names.has(partName(table, monthsAgo(-ahead))));
    }
    // Message pages keep room for a row's next versions (HOT updates), partition by partition.
    const { rows: ff } = await svc.db.query<{ name: string; opts: string[] | null }>(
      `SELECT c.relname AS name, c.reloptions AS opts FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'messages'::regclass`,
    );
    for (const r of ff) assert.deepEqual(r.opts, ['fillfactor=50'], r.name);
  });

  it('takes a write into a month with no partition in the default one; the next round gives it its month', async () => {
    const at = monthsAgo(20);
    const id = await oldMessage(at);
    assert.equal(await home(id), 'messages_default');
    const r = await round(0);
    assert.ok(r.created.includes(partName('messages', at)), r.created.join());
    assert.equal(await home(id), partName('messages', at));
    assert.equal(await read(id), 200);
  });

  it('keeps an old month until the retention passes, then drops it whole unless it holds a message not final', async () => {
    const dropped = monthsAgo(14);
    const busy = monthsAgo(13);
    const recent = monthsAgo(1);
    const done = await oldMessage(dropped);
    const queued = await oldMessage(busy, 'queued');
    const doneBeside = await oldMessage(busy);
    const fresh = await oldMessage(recent);
    // Kept for ever by default (retention 0), and within a long retention.
    await round(0);
    await round(3650);
    for (const id of [done, queued, doneBeside, fresh]) assert.equal(await read(id), 200);

    const r = await round(100);
    assert.ok(r.dropped.includes(partName('messages', dropped)), r.dropped.join());
    assert.ok(r.kept.includes(partName('messages', busy)), r.kept.join());
    assert.equal(await read(done), 404);
    // A month that holds a queued message is kept whole.
    assert.equal(await read(queued), 200);
    assert.equal(await read(doneBeside), 200);
    assert.equal(await read(fresh), 200);

    // Once the queued message is final, its month goes at the next round.
    await svc.db.query(`UPDATE messages SET status = 'failed' WHERE id = $1`, [queued]);
    const again = await round(100);
    assert.ok(again.dropped.includes(partName('messages', busy)), again.dropped.join());
    assert.equal(await read(queued), 404);
    assert.equal(await read(fresh), 200);
  });

  it('does each round once when two workers run it at the same moment', async () => {
    const at = monthsAgo(30);
    const id = await oldMessage(at);
    const rounds = await Promise.all([round(0), round(0), round(0)]);
    const made = rounds.flatMap((r) => r.created).filter((n) => n === partName('messages', at));
    assert.equal(made.length, 1);
    assert.ok(rounds.some((r) => r.ran));
    assert.equal(await home(id), partName('messages', at));
  });
});

const CONVERSION = '0355_partition_by_time.sql';

/** Migration 0355 on a database holding rows: they all move, each into its month. */
describe('migration 0355: existing messages, events and deliveries move into month partitions', () => {
  let scratch: ScratchDatabase | undefined;
  let client: pg.Client;

  before(async () => {
    scratch = await createScratchDatabase('part');
    client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await scratch?.drop();
  });

  const apply = (pick: (file: string) => boolean) => applyMigrations(client, pick);

  it('moves every row, keeps them readable by id, and the event payload still reads its message', async () => {
    await apply((f) => f < CONVERSION);
    const account = '01900000-0000-7000-8000-000000000001';
    const old = '2025-03-10T00:00:00Z';
    await client.query(`INSERT INTO accounts (id, name) VALUES ($1, 'Before 0355')`, [account]);
    await client.query(
      `INSERT INTO messages (account_id, id, outgoing, status, to_number, created_at)
       SELECT $1::uuid, ${OLD_ID}, true, 'delivered', '+14155550199', $2 FROM generate_series(1, 5)
       UNION ALL SELECT $1::uuid, sparrow_uuidv7(), true, 'queued', '+14155550199', now()`,
      [account, old],
    );
    await client.query(
      `INSERT INTO events (id, account_id, type, data)
       SELECT ${OLD_ID}, $1::uuid, 'message-status', jsonb_build_object('hydrate', 'message', 'message', jsonb_build_object('id', m.id))
         FROM messages m WHERE m.status = 'delivered'`,
      [account, old],
    );
    await apply((f) => f >= CONVERSION);
    const { rows } = await client.query<{ t: string; n: number }>(
      `SELECT tableoid::regclass::text AS t, count(*)::int AS n FROM messages GROUP BY 1 ORDER BY 1`,
    );
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[0], { t: 'messages_p2025_03', n: 5 });
    assert.equal(rows[1].n, 1);
    assert.match(rows[1].t, /^messages_p\d{4}_\d{2}$/);
    const { rows: ev } = await client.query<{ t: string; id: string | null }>(
      `SELECT tableoid::regclass::text AS t, sparrow_event_payload(e) -> 'message' ->> 'to' AS id FROM events e`,
    );
    assert.equal(ev.length, 5);
    assert.ok(ev.every((e) => e.t === 'events_p2025_03' && e.id === '+14155550199'));
  });
});
