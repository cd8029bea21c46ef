/**
 * Through PgBouncer in transaction pooling mode (DATABASE_POOLER=transaction): what breaks with a
 * plain session-minded client, and that the pool, transactions and migrations of Sparrow work.
 * Runs against the test's PostgreSQL (embedded or DATABASE_URL) behind a PgBouncer of its own.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createPool, DB_TIMEOUTS, type Db, withTx } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { findAccount } from '../../src/db/queries/accounts.ts';
import { createAccount } from '../../src/domain/accounts/create-account.ts';
import { freshDatabase } from '../helpers.ts';
import { type PgBouncer, pgbouncerPath, startPgBouncer } from '../support/pgbouncer.ts';

const POOLED = { ...DB_TIMEOUTS, statementMs: 4_000, pooler: 'transaction' as const };

describe('through PgBouncer in transaction pooling mode', {
  skip: pgbouncerPath() ? false : 'pgbouncer is not installed (Debian package pgbouncer)',
}, () => {
  let database: { url: string; drop: () => Promise<void> };
  let bouncer: PgBouncer;
  let db: Db;
  before(async () => {
    database = await freshDatabase();
    // Two server connections for many clients: consecutive transactions of one client land on
    // different ones, as they do under load. The pooler's own default timeout: 7 s.
    bouncer = await startPgBouncer(database.url, { poolSize: 2, statementTimeoutMs: 7_000 });
    db = createPool(bouncer.url, 8, POOLED);
  });
  after(async () => {
    await db?.end();
    await bouncer?.stop();
    await database?.drop();
  });

  it('a pool as a direct connection has it is refused: statement_timeout is no startup parameter PgBouncer takes', async () => {
    const direct = createPool(bouncer.url, 1, { ...DB_TIMEOUTS, pooler: 'none' });
    try {
      await assert.rejects(direct.query('SELECT 1'), /unsupported startup parameter: statement_timeout/);
    } finally {
      await direct.end();
    }
  });

  it('named prepared statements collide across clients without DATABASE_POOLER; with it they run', async () => {
    const plain = new pg.Pool({ connectionString: bouncer.url, max: 6 });
    try {
      const runs = () =>
        Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            plain.query({ name: 'probe', text: 'SELECT $1::int AS n', values: [i] }),
          ),
        );
      let failed: Error | undefined;
      for (let i = 0; i < 5 && !failed; i++) await runs().catch((e: Error) => (failed = e));
      assert.match(String(failed?.message), /prepared statement "probe" (already exists|does not exist)/);
    } finally {
      await plain.end();
    }
    const { account } = await createAccount(db, { name: 'Pooled' });
    const found = await Promise.all(Array.from({ length: 40 }, () => findAccount(db, account.id)));
    assert.ok(found.every((a) => a?.id === account.id));
  });

  it('the statement timeout holds inside transactions (SET LOCAL) and never leaks to other clients', async () => {
    await withTx(db, async (tx) => {
      assert.equal((await tx.query('SHOW statement_timeout')).rows[0].statement_timeout, '4s');
    });
    await assert.rejects(
      withTx(db, (tx) => tx.query('SELECT pg_sleep(6)')),
      (err: { code?: string }) => err.code === '57014',
    );
    // Outside a transaction: the pooler's connect_query default, whatever ran before on the connection.
    for (let i = 0; i < 6; i++)
      assert.equal((await db.query('SHOW statement_timeout')).rows[0].statement_timeout, '7s');
  });

  it('migrations run through it, concurrently, once each, and leave no advisory lock behind', async () => {
    const name = `sparrow_t_pool_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    let other: PgBouncer | undefined;
    try {
      await admin.query(`CREATE DATABASE ${name}`);
      const u = new URL(database.url);
      u.pathname = `/${name}`;
      other = await startPgBouncer(u.toString(), { poolSize: 2 });
      const [a, b, c] = await Promise.all([migrate(other.url), migrate(other.url), migrate(other.url)]);
      const check = new pg.Client({ connectionString: u.toString() });
      await check.connect();
      try {
        const { rows } = await check.query(
          'SELECT count(*)::int AS n, count(DISTINCT name)::int AS d FROM schema_migrations',
        );
        assert.equal(rows[0].n, rows[0].d);
        assert.equal(
          a.length + b.length + c.length,
          rows[0].n,
          'each migration applied by exactly one of them',
        );
        // This database's: pg_locks shows the whole cluster's, which the other test files share.
        const locks = await check.query(
          `SELECT count(*)::int AS n FROM pg_locks
            WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        assert.equal(locks.rows[0].n, 0);
      } finally {
        await check.end();
      }
      // Through the pooler's server connections the migrations ran on: no session setting left behind.
      const through = new pg.Pool({ connectionString: other.url, max: 4 });
      try {
        for (let i = 0; i < 8; i++) {
          const sync = await through.query('SHOW synchronous_commit');
          assert.equal(sync.rows[0].synchronous_commit, 'on');
        }
      } finally {
        await through.end();
      }
    } finally {
      await other?.stop();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
    }
  });
});
