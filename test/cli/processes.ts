/** Child processes for the CLI tests: `sparrow start` on a temp DATA_DIR and one-off CLI commands. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../helpers.ts';
import { listenerEnv, ready } from '../support/child-service.ts';

export { ready, requestToken } from '../support/child-service.ts';

const run = promisify(execFile);
export const BIN = path.resolve('bin/sparrow.js');

/** A temp DATA_DIR the embedded server's `postgres` user can enter (as root). */
export function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-cli-'));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/**
 * Services still running when this test process ends (a file-level timeout skips the `after`
 * hooks): stopped with it, so that no service or PostgreSQL outlives the test run.
 */
const live = new Set<ChildProcess>();
const stopAll = () => {
  for (const c of live) c.kill('SIGTERM');
};
process.once('exit', stopAll);
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.once(sig, () => {
    stopAll();
    process.exit(1);
  });
}

export interface Service {
  child: ChildProcess;
  port: number;
  externalsPort: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `sparrow start` and waits until /readyz answers 200. */
export async function startService(dataDir: string, env: Record<string, string> = {}): Promise<Service> {
  const listeners = await listenerEnv();
  const { port, externalsPort } = listeners;
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      ...listeners.env,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  await eventually(
    async () => {
      if (gone) throw new Error(`sparrow start exited before it was ready:\n${out}`);
      return ready(port);
    },
    90_000,
    100,
  );
  return { child, port, externalsPort, output: () => out, exited };
}

/** SIGTERM, and the exit code. */
export async function stopService(svc: Service): Promise<number | null> {
  svc.child.kill('SIGTERM');
  return svc.exited;
}

/**
 * Inside a `describe`: temp DATA_DIRs and services made through the answer, stopped (those still
 * running) and removed after the tests.
 */
export function suiteServices(): {
  dataDir: () => string;
  start: (dataDir: string, env?: Record<string, string>) => Promise<Service>;
} {
  const dirs: string[] = [];
  const running: Service[] = [];
  after(async () => {
    for (const s of running) if (s.child.exitCode === null) await stopService(s);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return {
    dataDir() {
      const dir = tempDataDir();
      dirs.push(dir);
      return dir;
    },
    async start(dataDir, env) {
      const svc = await startService(dataDir, env);
      running.push(svc);
      return svc;
    },
  };
}

/** The postmaster.pid of the embedded PostgreSQL of a DATA_DIR. */
export const pidFile = (dataDir: string) => path.join(dataDir, 'pg', 'postmaster.pid');

/** The pid of the embedded PostgreSQL of a DATA_DIR, from its postmaster.pid. */
export const postmasterPid = (dataDir: string) =>
  Number(fs.readFileSync(pidFile(dataDir), 'utf8').split('\n')[0]);

/**
 * The pids of the PostgreSQL servers (postmasters: `postgres -D DIR …`; their backends rename
 * themselves) running on the embedded data directory of a DATA_DIR, from /proc; null where there is
 * no /proc to read.
 */
export function postmastersOn(dataDir: string): number[] | null {
  if (!fs.existsSync('/proc/self/cmdline')) return null;
  const pgdir = fs.realpathSync(path.join(dataDir, 'pg'));
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // exited meanwhile
    }
    const d = argv.indexOf('-D');
    if (path.basename(argv[0] ?? '') !== 'postgres' || d < 0) continue;
    const dir = argv[d + 1] ?? '';
    if ((fs.existsSync(dir) ? fs.realpathSync(dir) : dir) === pgdir) found.push(Number(entry));
  }
  return found.sort((a, b) => a - b);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `sparrow …args` to completion (never rejects: the exit code is in the result). */
export async function sparrow(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL: '', ...env },
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
