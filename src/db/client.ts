import pg from 'pg';

// numeric and bigint arrive as strings by default; our amounts and counts fit a JS number.
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/** The connection pool every query goes through. */
export type Db = pg.Pool;
/** A client inside a transaction (or the pool itself when no transaction is needed). */
export type Queryable = pg.Pool | pg.PoolClient;

/** How long to wait for a connection, and how long one statement may run (0: no limit). */
export interface DbTimeouts {
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** Any statement, unless its transaction is marked bulk. */
  statementMs: number;
  /** A statement of a bulk transaction (`withTx(…, { bulk: true })`): a send's accept statement. */
  bulkStatementMs: number;
  /**
   * DATABASE_POOLER=transaction: the connection string leads to a transaction-pooling PgBouncer
   * (or the like), where a server connection is ours for one transaction only. Then no statement
   * is prepared by name (another client may get the connection it was prepared on, or we may get
   * one without it), the statement timeout is not a startup parameter (PgBouncer refuses unknown
   * ones) but SET LOCAL at the start of each transaction, and nothing relies on session state.
   */
  pooler?: 'none' | 'transaction';
}

/**
 * The defaults. A request's statements take milliseconds; 30 s stops a runaway one. A send's
 * accept statement is one INSERT … SELECT over every recipient: 47–57 s at 1,000,000 recipients on
 * the 2-core reference machine, so bulk transactions get 10 minutes (about ten million).
 */
export const DB_TIMEOUTS: DbTimeouts = { connectMs: 5_000, statementMs: 30_000, bulkStatementMs: 600_000 };

interface PoolState {
  timeouts: DbTimeouts;
  clients: Set<pg.Client>;
  /** Clients inside a bulk transaction: never cut (see dropConnections). */
  bulk: Set<pg.PoolClient>;
}
const pools = new WeakMap<pg.Pool, PoolState>();

/**
 * A client for transaction pooling: a query's `name` (a server-side prepared statement, which
 * lives on one server connection) is dropped, so every statement is parsed in the same round trip
 * that runs it (the unnamed statement, which a pooler keeps within the transaction).
 */
class UnnamedStatementsClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this only strips `name`.
  override query(config: any, ...rest: any[]): any {
    if (config && typeof config === 'object' && 'name' in config && config.name !== undefined) {
      const { name: _name, ...unnamed } = config;
      return (super.query as (...a: unknown[]) => unknown)(unnamed, ...rest);
    }
    return (super.query as (...a: unknown[]) => unknown)(config, ...rest);
  }
}

export function createPool(connectionString: string, max = 10, timeouts: DbTimeouts = DB_TIMEOUTS): Db {
  const pooled = timeouts.pooler === 'transaction';
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: timeouts.connectMs,
    // Enforced by the server: a statement past it fails with 57014 (answered 503). Through a
    // transaction pooler it is set per transaction instead (withTx), and the pooler's server
    // connections carry a default for single statements (docs/scaling.md).
    ...(timeouts.statementMs > 0 && !pooled ? { statement_timeout: timeouts.statementMs } : {}),
    // No JIT compilation: Sparrow's statements take milliseconds, and a server built with LLVM
    // (Debian's, not the embedded one) may spend seconds compiling one whose estimate passes
    // jit_above_cost. A DATABASE_URL that sets `options` itself keeps its own.
    ...(pooled ? {} : { options: '-c jit=off' }),
    ...(pooled ? { Client: UnnamedStatementsClient } : {}),
  });
  const state: PoolState = { timeouts, clients: new Set(), bulk: new Set() };
  pools.set(pool, state);
  pool.on('connect', (client) => state.clients.add(client as pg.Client));
  pool.on('remove', (client) => state.clients.delete(client as pg.Client));
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/**
 * Cuts every connection of the pool: the statements waiting on them fail at once ("Connection
 * terminated") and the pool opens new connections when asked. Used when the database stops
 * answering, since a stalled server never ends a statement by itself. A bulk transaction is spared:
 * a minute-long accept statement must not die because a busy server was slow to answer a ping;
 * it waits for the server like the server's own statement timeout does.
 */
export function dropConnections(db: Db): void {
  const state = pools.get(db);
  for (const client of state?.clients ?? [])
    if (!state?.bulk.has(client as unknown as pg.PoolClient)) client.connection.stream.destroy();
}

/**
 * Runs fn in one transaction: committed if it returns, rolled back if it throws. A `bulk`
 * transaction's statements may run up to the bulk statement timeout instead of the usual one;
 * `indexLookups` is preferIndexLookups, set with the BEGIN in the same round trip; `asyncCommit`
 * commits without waiting for the disk (synchronous_commit off: a crash may lose the transaction,
 * never corrupt anything), for bookkeeping whose loss costs nothing but whose locks must be short.
 */
export async function withTx<T>(
  db: Db,
  fn: (tx: pg.PoolClient) => Promise<T>,
  opts: { bulk?: boolean; indexLookups?: boolean; asyncCommit?: boolean } = {},
): Promise<T> {
  const client = await db.connect();
  const state = pools.get(db);
  let broken: Error | undefined;
  try {
    // One round trip (simple protocol), as BEGIN alone is.
    const lookups =
      (opts.indexLookups ? `; ${INDEX_LOOKUPS}` : '') +
      (opts.asyncCommit ? '; SET LOCAL synchronous_commit = off' : '');
    if (opts.bulk) {
      state?.bulk.add(client);
      const ms = state?.timeouts.bulkStatementMs ?? DB_TIMEOUTS.bulkStatementMs;
      await client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.trunc(ms)}${lookups}`);
    } else if (state?.timeouts.pooler === 'transaction' && state.timeouts.statementMs > 0) {
      await client.query(
        `BEGIN; SET LOCAL statement_timeout = ${Math.trunc(state.timeouts.statementMs)}; SET LOCAL jit = off${lookups}`,
      );
    } else {
      await client.query(`BEGIN${lookups}`);
    }
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is not given back to the pool.
    await client.query('ROLLBACK').catch((e: Error) => {
      broken = e;
    });
    throw err;
  } finally {
    state?.bulk.delete(client);
    client.release(broken);
  }
}

/** withTx for a bulk transaction: its statements may run up to DB_BULK_STATEMENT_TIMEOUT_MS. */
export function withBulkTx<T>(db: Db, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTx(db, fn, { bulk: true });
}

/**
 * Makes the statements of the current transaction find rows one index probe at a time. The
 * dispatcher's set-based statements join a batch of ids (1,000 or so) to messages; with statistics
 * taken while a bulk send grows the table the planner would hash the whole table instead, which
 * costs a full scan per batch and grows with every message sent.
 */
export async function preferIndexLookups(tx: pg.PoolClient): Promise<void> {
  await tx.query(INDEX_LOOKUPS);
}

// JIT off too: a plan type turned off is priced at 10^10, so every statement of the transaction
// passes jit_above_cost, and a server built with LLVM (Debian's PostgreSQL 15, not the embedded
// one) compiled each claim for 2–3 s before running it in a millisecond. And the generic plan of
// each prepared statement, always: with an array of ids PostgreSQL's own choice kept a custom plan,
// planned anew at every call (the outcome flush 0.21 ms a call, the in-flight marks' delete 0.15 ms
// for a 0.06 ms statement: on bench:peer's SMPP race ~1 s of PostgreSQL's 16 s a round), where
// under these settings both plans are the same nested loop of index probes.
const INDEX_LOOKUPS =
  'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off; SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_generic_plan';

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
