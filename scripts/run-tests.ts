/**
 * The test command: prepares one PostgreSQL (embedded, or the server in DATABASE_URL) with a
 * migrated template database, then runs node's test runner over test/**\/*.test.ts. Each test file
 * clones the template into a database of its own, so files run in parallel without sharing rows.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { ensureBundle } from './bundle.js';

function findTests(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? findTests(path.join(dir, e.name))
        : e.name.endsWith('.test.ts')
          ? [path.join(dir, e.name)]
          : [],
    )
    .sort();
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function main() {
  const files = process.argv.slice(2).length ? process.argv.slice(2) : findTests('test');
  // The CLI tests run bin/sparrow.js, which runs the bundle: build it once here, not in each of them.
  await ensureBundle().catch(() => {});
  const template = `sparrow_tpl_${process.pid}`;
  let adminUrl: string;
  let stop = async () => {};
  let tmp: string | undefined;
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
    console.log(`# tests against DATABASE_URL${process.env.REDIS_URL ? ' and REDIS_URL' : ''}`);
  } else {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-test-'));
    // As root, PostgreSQL runs as a separate user that must be able to enter the directory.
    fs.chmodSync(tmp, 0o755);
    const server = await startEmbedded(tmp, 'postgres');
    adminUrl = server.url('postgres');
    stop = server.stop;
    console.log('# tests against embedded PostgreSQL');
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await migrate(withDatabase(adminUrl, template));

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SPARROW_TEST_ADMIN_URL: adminUrl,
    SPARROW_TEST_TEMPLATE: template,
    SPARROW_TEST_PREFIX: `sparrow_t_${process.pid}_`,
    // The server DATABASE_URL named (not the embedded one): the scale-out tests run only against it.
    ...(process.env.DATABASE_URL ? { SPARROW_TEST_SERVER_URL: process.env.DATABASE_URL } : {}),
  };
  delete env.DATABASE_URL;
  // A file that has not finished in 7 minutes is stuck. The slowest honest one (the CLI beside a
  // live service: a 70 s wait for PostgreSQL's lock-file check, and a dozen process starts) takes
  // 2–3 minutes when the machine is busy; 180 s was not enough at a load average of 30.
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=420000', ...files],
      { stdio: 'inherit', env },
    );
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });

  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
    [`sparrow_t_${process.pid}_%`, template],
  );
  for (const r of rows)
    await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`).catch(() => {});
  await admin.end();
  await stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
