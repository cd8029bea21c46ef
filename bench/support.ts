/** Shared bench plumbing: a PostgreSQL to measure against (embedded, or DATABASE_URL) with a fresh database. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';

export interface BenchDatabase {
  url: string;
  stop: () => Promise<void>;
}

/**
 * A migrated, empty database for one benchmark run; dropped (or the embedded server removed) on
 * stop. `statements`: the embedded server preloads pg_stat_statements and the database has the
 * extension (topStatements reads it).
 */
export async function benchDatabase(opts: { statements?: boolean } = {}): Promise<BenchDatabase> {
  const name = `sparrow_bench_${process.pid}`;
  if (process.env.DATABASE_URL) {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = `/${name}`;
    await migrate(u.toString());
    return {
      url: u.toString(),
      stop: async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-bench-'));
  fs.chmodSync(dir, 0o755);
  const server = await startEmbedded(dir, name, {
    settings: opts.statements
      ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_planning=on']
      : [],
  });
  const url = server.url(name);
  await migrate(url);
  if (opts.statements) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await c.end();
  }
  return {
    url,
    stop: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/**
 * The statements that took most of PostgreSQL's time since the last call (pg_stat_statements, then
 * reset), as printable lines: execution ms, planning ms, calls, rows, and the statement's start.
 */
export async function topStatements(db: pg.Pool, limit = 15): Promise<string[]> {
  const { rows } = await db.query<{ ms: number; plan: number; calls: number; rows: number; query: string }>(
    `SELECT total_exec_time::float8 AS ms, total_plan_time::float8 AS plan, calls::int, rows::int, query
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time + total_plan_time DESC LIMIT $1`,
    [limit],
  );
  await db.query('SELECT pg_stat_statements_reset()');
  return rows.map(
    (r) =>
      `${fmt(r.ms).padStart(7)} ms + plan ${fmt(r.plan).padStart(5)} ms ${fmt(r.calls).padStart(7)} calls ${fmt(r.rows).padStart(8)} rows  ${r.query.replace(/\s+/g, ' ').slice(0, 140)}`,
  );
}

/** Runs `task(0..n-1)`, `width` at a time (a client's concurrent calls); answers the results in call order. */
export async function atATime<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

/** The median of some timings (the upper one of an even count). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}
