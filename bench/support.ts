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

/** A migrated, empty database for one benchmark run; dropped (or the embedded server removed) on stop. */
export async function benchDatabase(): Promise<BenchDatabase> {
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
  const server = await startEmbedded(dir, name);
  const url = server.url(name);
  await migrate(url);
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
