import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPool, type Db, preferIndexLookups, withBulkTx, withTx } from '../../src/db/client.ts';
import { classifyDbError } from '../../src/db/errors.ts';
import { freshDatabase } from '../helpers.ts';

describe('database timeouts', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  before(async () => {
    database = await freshDatabase();
    db = createPool(database.url, 2, { connectMs: 2_000, statementMs: 200, bulkStatementMs: 5_000 });
  });
  after(async () => {
    await db.end();
    await database.drop();
  });

  it('cancels a statement that runs past the statement timeout, as a 503 kind of failure', async () => {
    const err = await db.query('SELECT pg_sleep(2)').then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err, 'the statement was not cancelled');
    assert.equal((err as { code?: string }).code, '57014');
    assert.equal(classifyDbError(err), 'unavailable');
    // The connection stays usable.
    assert.equal((await db.query('SELECT 1 AS one')).rows[0].one, 1);
  });

  it('lets a bulk transaction run past the usual timeout, and only that transaction', async () => {
    await withBulkTx(db, (tx) => tx.query('SELECT pg_sleep(0.5)'));
    await assert.rejects(
      withTx(db, (tx) => tx.query('SELECT pg_sleep(0.5)')),
      (e: { code?: string }) => e.code === '57014',
    );
    await assert.rejects(db.query('SELECT pg_sleep(0.5)'), (e: { code?: string }) => e.code === '57014');
  });

  it('plans without JIT compilation, on every connection and in a pooler’s transactions', async () => {
    // A server built with LLVM compiled each dispatcher claim (its plan priced at 10^10 with
    // sequential scans turned off) for 2–3 s before running it in a millisecond.
    assert.equal((await db.query('SHOW jit')).rows[0].jit, 'off');
    const pooled = createPool(database.url, 1, {
      connectMs: 2_000,
      statementMs: 1_000,
      bulkStatementMs: 1_000,
      pooler: 'transaction',
    });
    try {
      assert.equal((await withTx(pooled, (tx) => tx.query('SHOW jit'))).rows[0].jit, 'off');
      await withTx(pooled, async (tx) => {
        await preferIndexLookups(tx);
        assert.equal((await tx.query('SHOW jit')).rows[0].jit, 'off');
      });
    } finally {
      await pooled.end();
    }
  });

  it('fails to connect within the connect timeout when nothing answers', async () => {
    // A listening socket that never answers the startup message (loopback only).
    const net = await import('node:net');
    const silent = net.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    const dead = createPool(`postgres://x@127.0.0.1:${port}/x`, 1, {
      connectMs: 300,
      statementMs: 1_000,
      bulkStatementMs: 1_000,
    });
    const err = await dead.query('SELECT 1').then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err);
    assert.equal(classifyDbError(err), 'unavailable', String(err));
    await dead.end();
    silent.close();
  });

  it('tells a refused request value from a fault of the service', () => {
    assert.equal(
      classifyDbError({ code: '22P02', message: 'invalid input syntax for type uuid' }),
      'bad-input',
    );
    assert.equal(classifyDbError({ code: '22003', message: 'bigint out of range' }), 'bad-input');
    assert.equal(classifyDbError({ code: '42601', message: 'syntax error' }), undefined);
    assert.equal(classifyDbError(new Error('boom')), undefined);
    assert.equal(classifyDbError({ code: 'ECONNREFUSED' }), 'unavailable');
  });
});
