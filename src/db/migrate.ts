import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { StartupError } from '../startup-error.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';

const dir = path.join(PACKAGE_ROOT, 'src', 'db', 'migrations');
const LOCK = 727274;

/** The four-digit number that orders a migration file. */
function numberOf(file: string): number {
  return Number(file.slice(0, 4));
}

/**
 * Which of `files` (sorted) still have to run, given the names already applied. Migrations run
 * forward only: a file numbered at or below the newest applied one that has not run is refused (an
 * upgraded database and a fresh one would otherwise apply the files in different orders), and so
 * are two files sharing a number.
 */
export function pendingMigrations(files: string[], applied: Set<string>): string[] {
  for (let i = 1; i < files.length; i++)
    if (numberOf(files[i]) === numberOf(files[i - 1]))
      throw new StartupError(
        `migrations ${files[i - 1]} and ${files[i]} share the number ${files[i].slice(0, 4)}: give the newer one the next free number`,
      );
  const newest = files.filter((f) => applied.has(f)).at(-1);
  const pending = files.filter((f) => !applied.has(f));
  const behind = newest ? pending.find((f) => numberOf(f) < numberOf(newest)) : undefined;
  if (behind && newest)
    throw new StartupError(
      `migration ${behind} is numbered below ${newest}, which this database has already applied: migrations run forward only, so give it a number above ${newest.slice(0, 4)}`,
    );
  return pending;
}

/**
 * Applies the numbered SQL files in db/migrations that have not run yet, in number order, each in
 * its own transaction, so that several processes starting at once apply them once: each transaction
 * first takes a transaction-level advisory lock and checks again that its file is still to do.
 *
 * Nothing here lives beyond one transaction (no session advisory lock, no session SET), so it
 * works as well through a transaction-pooling PgBouncer, where consecutive transactions of one
 * client may run on different server connections (docs/scaling.md).
 */
export async function migrate(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  const applied: string[] = [];
  try {
    const files = (await fs.readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
    const done = await appliedMigrations(client);
    const pending = pendingMigrations(files, done);
    for (const file of pending) {
      const sql = await fs.readFile(path.join(dir, file), 'utf8');
      try {
        // Commits need not wait for their WAL flush: a crash can lose only the last migrations
        // applied, each with its schema_migrations row (one transaction), and they run again.
        await client.query(
          `BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_advisory_xact_lock(${LOCK})`,
        );
        await client.query(
          'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
        );
        // Another process may have applied it while this one waited for the lock.
        const { rowCount } = await client.query('SELECT 1 FROM schema_migrations WHERE name = $1', [file]);
        if (rowCount) {
          await client.query('COMMIT');
          continue;
        }
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`migration ${file} failed: ${(err as Error).message}`);
      }
      applied.push(file);
    }
  } finally {
    await client.end();
  }
  return applied;
}

/** The migrations already applied (none when schema_migrations does not exist yet). */
async function appliedMigrations(client: pg.Client): Promise<Set<string>> {
  const { rows } = await client.query<{ exists: boolean }>(
    `SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`,
  );
  if (!rows[0].exists) return new Set();
  return new Set((await client.query('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
}
