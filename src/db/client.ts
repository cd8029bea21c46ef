import pg from 'pg';

// numeric and bigint arrive as strings by default; our amounts and counts fit a JS number.
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** The connection pool every query goes through. */
export type Db = pg.Pool;
/** A client inside a transaction (or the pool itself when no transaction is needed). */
export type Queryable = pg.Pool | pg.PoolClient;

export function createPool(connectionString: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/** Runs fn in one transaction: committed if it returns, rolled back if it throws. */
export async function withTx<T>(db: Db, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Makes the statements of the current transaction find rows one index probe at a time. The
 * dispatcher's set-based statements join a batch of ids (1,000 or so) to messages; with statistics
 * taken while a bulk send grows the table the planner would hash the whole table instead, which
 * costs a full scan per batch and grows with every message sent.
 */
export async function preferIndexLookups(tx: pg.PoolClient): Promise<void> {
  await tx.query(
    'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off',
  );
}

/**
 * Runs fn inside a savepoint of the caller's transaction: if it throws, only its writes are undone
 * (the transaction goes on) and the error is rethrown for the caller to judge.
 */
export async function withSavepoint<T>(tx: Queryable, fn: () => Promise<T>): Promise<T> {
  // One name for all: savepoints nest, and ROLLBACK TO / RELEASE act on the latest of that name.
  await tx.query('SAVEPOINT sparrow_sp');
  try {
    const out = await fn();
    await tx.query('RELEASE SAVEPOINT sparrow_sp');
    return out;
  } catch (err) {
    await tx.query('ROLLBACK TO SAVEPOINT sparrow_sp');
    throw err;
  }
}
