/**
 * A database of its own for the tests of one migration: created empty on the test server, the
 * migrations before the one under test applied, rows of the old shape written, then the rest
 * applied. Not a test file itself.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';

const DIR = path.join(PACKAGE_ROOT, 'src', 'db', 'migrations');

/** An empty database: its URL, and drop() to remove it (connections and all). */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = process.env.SPARROW_TEST_ADMIN_URL;
  if (!url) throw new Error('run the tests with `npm test` (it prepares the database)');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database named after the run's prefix and `tag`. */
export async function createScratchDatabase(tag: string): Promise<ScratchDatabase> {
  const name = `${process.env.SPARROW_TEST_PREFIX ?? 'sparrow_t_x_'}${tag}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const u = new URL(process.env.SPARROW_TEST_ADMIN_URL as string);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

/** Applies the migration files for which `pick` holds, in order, each in its own transaction. */
export async function applyMigrations(
  target: string | pg.Client,
  pick: (file: string) => boolean,
): Promise<void> {
  const files = (await fs.readdir(DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f) && pick(f)).sort();
  const client = typeof target === 'string' ? new pg.Client({ connectionString: target }) : target;
  if (typeof target === 'string') await client.connect();
  try {
    for (const f of files) {
      await client.query('BEGIN');
      await client.query(await fs.readFile(path.join(DIR, f), 'utf8'));
      await client.query('COMMIT');
    }
  } finally {
    if (typeof target === 'string') await client.end();
  }
}
