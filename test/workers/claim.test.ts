import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createPool, type Db } from '../../src/db/client.ts';
import {
  type Claim,
  claimDue,
  completeClaim,
  holdsClaim,
  lockDue,
  type QueueSpec,
  releaseClaim,
  retryClaim,
} from '../../src/db/queries/claim.ts';
import { backoffMs, type LeasedQueue, runLeased, runLocked } from '../../src/domain/claim.ts';
import { freshDatabase } from '../helpers.ts';

/** A queue table of its own: items due at `due_at`, leased with a token, attempts counted. */
const LEASED: QueueSpec = {
  table: 'claim_test_items',
  key: ['id'],
  due: `q.done_at IS NULL AND q.due_at <= now()`,
  order: 'q.due_at, q.id',
  lease: { until: 'claimed_until', token: 'claim_token' },
  attempts: 'attempts',
  retryAt: 'due_at',
};

/** The same rows as a locked queue (the transaction's row lock is the claim). */
const LOCKED: QueueSpec = { ...LEASED, lease: undefined };

interface Item {
  id: string;
  name: string;
  attempts: number;
  due_at: Date;
  claimed_until: Date | null;
  claim_token: string | null;
  done_at: Date | null;
}

describe('the claim helper (real PostgreSQL)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const lines: string[] = [];
  const log = (msg: string) => lines.push(msg);

  before(async () => {
    const database = await freshDatabase();
    drop = database.drop;
    db = createPool(database.url, 4);
    await db.query(`CREATE TABLE claim_test_items (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(), name text NOT NULL,
      attempts integer NOT NULL DEFAULT 0, due_at timestamptz NOT NULL DEFAULT now(),
      claimed_until timestamptz, claim_token uuid, done_at timestamptz)`);
  });
  after(async () => {
    await db.end();
    await drop();
  });
  beforeEach(async () => {
    lines.length = 0;
    await db.query('DELETE FROM claim_test_items');
  });

  const add = async (...names: string[]) => {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO claim_test_items (name, due_at)
       SELECT n, now() - (o || ' s')::interval FROM unnest($1::text[]) WITH ORDINALITY AS u(n, o) RETURNING id`,
      [names],
    );
    return rows.map((r) => r.id);
  };
  const item = async (id: string) =>
    (await db.query<Item>('SELECT * FROM claim_test_items WHERE id = $1', [id])).rows[0];
  /** Seconds from the database's now() to `at`. */
  const secondsFromNow = async (at: Date) =>
    (await db.query<{ s: number }>('SELECT extract(epoch FROM $1::timestamptz - now())::float8 AS s', [at]))
      .rows[0].s;
  const expireLease = (id: string) =>
    db.query(`UPDATE claim_test_items SET claimed_until = now() - interval '1 second' WHERE id = $1`, [id]);

  it('claims each due item once: a held lease keeps it from every other claim', async () => {
    const [a, b] = await add('a', 'b');
    const first = await claimDue<Item>(db, LEASED, 1, 60, randomUUID());
    const second = await claimDue<Item>(db, LEASED, 10, 60, randomUUID());
    assert.deepEqual([...first, ...second].map((i) => i.id).sort(), [a, b].sort());
    assert.equal(first.length, 1);
    assert.equal(second.length, 1);
    assert.deepEqual(await claimDue<Item>(db, LEASED, 10, 60, randomUUID()), [], 'both are leased');
    assert.equal(first[0].attempts, 1, 'a claim counts an attempt');
  });

  it('two claims at the same moment share the queue without overlap (SKIP LOCKED)', async () => {
    const ids = await add(...Array.from({ length: 40 }, (_, i) => `item${i}`));
    const rounds = await Promise.all(
      [1, 2, 3, 4].map(() => claimDue<Item>(db, LEASED, 15, 60, randomUUID())),
    );
    const claimed = rounds.flatMap((r) => r.map((i) => i.id));
    assert.equal(new Set(claimed).size, claimed.length, 'no item claimed twice');
    assert.deepEqual(claimed.sort(), ids.sort(), 'every item claimed');
  });

  it('takes an item over once its lease has expired, and the stale holder can no longer complete it', async () => {
    const [id] = await add('a');
    const stale = randomUUID();
    const [held] = await claimDue<Item>(db, LEASED, 1, 60, stale);
    assert.equal(held.claim_token, stale);
    await expireLease(id);
    const fresh = randomUUID();
    const [again] = await claimDue<Item>(db, LEASED, 1, 60, fresh);
    assert.equal(again.id, id, 'reclaimed after the lease expired');
    assert.equal(again.attempts, 2);

    const staleClaim: Claim = { key: [id], token: stale };
    const freshClaim: Claim = { key: [id], token: fresh };
    assert.equal(await holdsClaim(db, LEASED, staleClaim), false);
    assert.equal(
      await completeClaim(db, LEASED, staleClaim, 'done_at = now()'),
      false,
      'stale token refused',
    );
    assert.equal((await item(id)).done_at, null, 'the stale holder changed nothing');
    assert.equal(await retryClaim(db, LEASED, staleClaim, 1000), false, 'nor can it retry the item');
    assert.equal(await releaseClaim(db, LEASED, staleClaim), false, 'nor release it');
    assert.equal((await item(id)).claim_token, fresh, 'the fresh claim stands');

    assert.equal(await completeClaim(db, LEASED, freshClaim, 'done_at = now()'), true);
    const done = await item(id);
    assert.ok(done.done_at);
    assert.equal(done.claim_token, null);
    assert.equal(done.claimed_until, null);
  });

  it('release hands an item back untried: due now, its attempt not counted', async () => {
    const [id] = await add('a');
    const token = randomUUID();
    await claimDue<Item>(db, LEASED, 1, 60, token);
    assert.equal(await releaseClaim(db, LEASED, { key: [id], token }), true);
    const [again] = await claimDue<Item>(db, LEASED, 1, 60, randomUUID());
    assert.equal(again.id, id);
    assert.equal(again.attempts, 1);
  });

  it('computes an exponential backoff, capped, or follows a schedule', () => {
    const b = { baseMs: 1000, maxMs: 10_000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => backoffMs(b, n)),
      [1000, 2000, 4000, 8000, 10_000, 10_000],
    );
    assert.equal(backoffMs({ baseMs: 500, factor: 3, maxMs: 1e9 }, 3), 4500);
    const s = { baseMs: 0, schedule: [30, 120, 600], maxMs: 1e9 };
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffMs(s, n)),
      [30, 120, 600, 600],
    );
  });

  const failing = (over: Partial<LeasedQueue<Item>> = {}): LeasedQueue<Item> => ({
    name: 'test-queue',
    spec: LEASED,
    leaseSeconds: 60,
    backoff: { baseMs: 60_000, maxMs: 3_600_000 },
    key: (i) => [i.id],
    attempts: (i) => i.attempts,
    describe: (i) => `item ${i.name}`,
    ...over,
  });

  it('logs each failed item through the worker’s logger and retries it after a growing backoff', async () => {
    const [bad, good] = await add('bad', 'good');
    const handle = async (i: Item, c: Claim) => {
      if (i.name === 'bad') throw new Error('the carrier said no');
      await completeClaim(db, LEASED, c, 'done_at = now()');
    };
    assert.equal(await runLeased(db, log, failing(), 10, handle), 2);
    assert.deepEqual(lines, ['test-queue item bad: the carrier said no']);
    assert.ok((await item(good)).done_at, 'one failure does not stop the others');

    let row = await item(bad);
    assert.equal(row.claim_token, null, 'the failed claim is given up');
    let wait = await secondsFromNow(row.due_at);
    assert.ok(wait > 50 && wait <= 60, `due again after the first backoff (60 s), not ${wait}`);

    // The backoff has passed: the second failure waits twice as long.
    await db.query(`UPDATE claim_test_items SET due_at = now() - interval '1 second' WHERE id = $1`, [bad]);
    assert.equal(await runLeased(db, log, failing(), 10, handle), 1);
    row = await item(bad);
    assert.equal(row.attempts, 2);
    wait = await secondsFromNow(row.due_at);
    assert.ok(wait > 110 && wait <= 120, `due again after the second backoff (120 s), not ${wait}`);
    assert.equal(lines.length, 2);
  });

  it('gives an item up after the maximum of attempts, and says so', async () => {
    const [id] = await add('doomed');
    const gaveUp: string[] = [];
    const q = failing({
      backoff: { baseMs: 60_000, maxMs: 60_000, maxAttempts: 2 },
      giveUp: async (d, i, c) => {
        gaveUp.push(i.id);
        await completeClaim(d, LEASED, c, 'done_at = now()');
      },
    });
    const boom = async () => {
      throw new Error('boom');
    };
    await runLeased(db, log, q, 1, boom);
    assert.deepEqual(gaveUp, [], 'retried after the first attempt');
    await db.query(`UPDATE claim_test_items SET due_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await runLeased(db, log, q, 1, boom);
    assert.deepEqual(gaveUp, [id]);
    assert.ok((await item(id)).done_at);
    assert.deepEqual(lines, [
      'test-queue item doomed: boom',
      'test-queue item doomed: boom',
      'test-queue item doomed: given up after 2 attempts',
    ]);
  });

  it('works a locked queue one transaction per item: a failure rolls back, is logged, and waits out its backoff', async () => {
    const [first, second] = await add('first', 'second');
    const done = await runLocked(
      db,
      log,
      {
        name: 'locked-queue',
        spec: LOCKED,
        describe: (i: Item) => `item ${i.name}`,
        key: (i) => [i.id],
        attempts: (i) => i.attempts,
        backoff: { baseMs: 60_000, maxMs: 60_000 },
      },
      10,
      async (tx, i) => {
        await tx.query('UPDATE claim_test_items SET done_at = now() WHERE id = $1', [i.id]);
        if (i.name === 'first') throw new Error('disk full');
      },
    );
    assert.equal(done, 1);
    assert.deepEqual(lines, ['locked-queue item first: disk full']);
    const failed = await item(first);
    assert.equal(failed.done_at, null, 'the failed item’s work was rolled back');
    assert.equal(failed.attempts, 1);
    const wait = await secondsFromNow(failed.due_at);
    assert.ok(wait > 50 && wait <= 60, `due again after the backoff, not ${wait}`);
    assert.ok((await item(second)).done_at, 'the next item was worked');
  });

  it('locks due rows for the caller’s transaction only: another transaction skips them', async () => {
    await add('a', 'b');
    const client = await db.connect();
    try {
      await client.query('BEGIN');
      const mine = await lockDue<Item>(client, LOCKED, 1);
      assert.equal(mine.length, 1);
      const others = await lockDue<Item>(db, LOCKED, 10);
      assert.deepEqual(
        others.map((i) => i.name),
        mine[0].name === 'a' ? ['b'] : ['a'],
      );
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    assert.equal((await lockDue<Item>(db, LOCKED, 10)).length, 2, 'released with the transaction');
  });
});
