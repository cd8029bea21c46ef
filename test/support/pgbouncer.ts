/**
 * A PgBouncer of the test's own (Debian's `pgbouncer`) in transaction pooling mode, on a free
 * loopback port, in front of the PostgreSQL of `url` (trust authentication on loopback, as the
 * machine's server and CI's have it). Started from a generated ini in a temp directory.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { testPort } from './ports.ts';

export interface PgBouncer {
  /** The database of `url`, through PgBouncer. */
  url: string;
  port: number;
  stop: () => Promise<void>;
  log: () => string;
}

/** Where Debian installs it; undefined when it is not installed. */
export function pgbouncerPath(): string | undefined {
  for (const p of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) if (fs.existsSync(p)) return p;
  try {
    return execFileSync('which', ['pgbouncer'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The uid of the `postgres` user PgBouncer runs as when started by root. */
function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
}

export async function startPgBouncer(
  url: string,
  opts: { poolSize?: number; statementTimeoutMs?: number } = {},
): Promise<PgBouncer> {
  const bin = pgbouncerPath();
  if (!bin) throw new Error('pgbouncer is not installed');
  const target = new URL(url);
  const dbName = target.pathname.slice(1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-pgbouncer-'));
  fs.chmodSync(dir, 0o777);
  const port = await testPort();
  const logFile = path.join(dir, 'pgbouncer.log');
  // connect_query: the statement timeout of autocommit statements, which a session SET cannot
  // carry through transaction pooling (see docs/scaling.md).
  const connectQuery = `SET statement_timeout = ${opts.statementTimeoutMs ?? 30_000}`;
  const ini = `[databases]
${dbName} = host=${target.hostname} port=${target.port || 5432} dbname=${dbName} user=${decodeURIComponent(target.username || 'postgres')}${target.password ? ` password=${decodeURIComponent(target.password)}` : ''} connect_query='${connectQuery}'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = ${opts.poolSize ?? 20}
max_client_conn = 1000
server_reset_query =
logfile = ${logFile}
pidfile = ${path.join(dir, 'pgbouncer.pid')}
admin_users = postgres
`;
  const iniFile = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(iniFile, ini);
  fs.chmodSync(iniFile, 0o600);
  if (process.getuid?.() === 0) fs.chownSync(iniFile, postgresUid(), -1);
  // PgBouncer refuses to run as root: as root it is started as the postgres user (-u).
  const args = process.getuid?.() === 0 ? ['-u', 'postgres', iniFile] : [iniFile];
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killIt = () => child.kill('SIGKILL');
  process.once('exit', killIt);
  child.once('exit', () => process.off('exit', killIt));
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const readLog = () => {
    try {
      return out + fs.readFileSync(logFile, 'utf8');
    } catch {
      return out;
    }
  };
  const end = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${readLog()}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) break;
    if (Date.now() > end) throw new Error(`pgbouncer did not listen: ${readLog()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const through = new URL(url);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  return {
    url: through.toString(),
    port,
    log: readLog,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
