/** Child processes for the CLI tests: `sparrow start` on a temp DATA_DIR and one-off CLI commands. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/db/embedded.ts';
import { eventually } from '../helpers.ts';

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
  const [port, externalsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      EXTERNALS_PORT: String(externalsPort),
      HOST: '127.0.0.1',
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

/** Whether the API listener answers /readyz with 200. */
export async function ready(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
  return res?.status === 200;
}

/** SIGTERM, and the exit code. */
export async function stopService(svc: Service): Promise<number | null> {
  svc.child.kill('SIGTERM');
  return svc.exited;
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
