import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { PACKAGE_ROOT } from '../util/package-root.ts';

const dir = path.join(PACKAGE_ROOT, 'src', 'db', 'migrations');

/**
 * Applies the numbered SQL files in db/migrations that have not run yet, each in its own
 * transaction, under an advisory lock so that several processes starting at once apply them once.
 */
export async function migrate(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  const applied: string[] = [];
  try {
    // Commits need not wait for their WAL flush: a crash can lose only the last migrations applied,
    // each with its schema_migrations row (one transaction), and they run again at the next start.
    await client.query('SET synchronous_commit = off');
    await client.query('SELECT pg_advisory_lock(727274)');
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    const files = (await fs.readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await fs.readFile(path.join(dir, file), 'utf8');
      try {
        await client.query('BEGIN');
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`);
      }
      applied.push(file);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(727274)').catch(() => {});
    await client.end();
  }
  return applied;
}
