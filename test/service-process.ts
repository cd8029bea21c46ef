/**
 * The service run as `npm start` runs it (`node --max-old-space-size=256 bin/sparrow.js start`: the
 * esbuild bundle of src/, rebuilt by bin/sparrow.js when a source is newer) in a child process on free ports, with a bootstrap account and client: for tests and
 * benchmarks of memory under the production heap cap, which an in-process service does not have.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { uuidv7 } from 'uuidv7';
import { listenerEnv, requestToken } from './support/child-service.ts';
import { START_FLAGS } from './support/start-flags.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A running service process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT` of the API listener. */
  api: string;
  accountId: string;
  /** Authorization headers with a token for the account. */
  auth: { authorization: string };
  /** The process's resident set size now and its peak (kB, from /proc/PID/status). */
  memory(): { rssKb: number; peakKb: number };
  /** Whether the process is still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

/** Starts the service with the given environment (DATABASE_URL, or DATA_DIR for embedded PostgreSQL). */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const listeners = await listenerEnv();
  const { port } = listeners;
  const accountId = uuidv7();
  const clientId = `bench-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  let output = '';
  const child = spawn(process.execPath, [...START_FLAGS, 'bin/sparrow.js', 'start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...listeners.env,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // The bootstrap client's secret at scrypt's least cost (as test/helpers.ts; production keeps 15).
      ...(env.NODE_ENV === 'production' ? {} : { SECRET_HASH_COST: '10' }),
      BOOTSTRAP_ACCOUNT_ID: accountId,
      BOOTSTRAP_CLIENT_ID: clientId,
      BOOTSTRAP_CLIENT_SECRET: clientSecret,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => {
    output = (output + d).slice(-4000);
  });
  child.stderr?.on('data', (d) => {
    output = (output + d).slice(-4000);
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const api = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (exited) throw new Error(`the service exited while starting:\n${output}`);
    if (i > 600) throw new Error(`the service did not answer /healthz:\n${output}`);
    const ok = await fetch(`${api}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const tokenRes = await requestToken(port, clientId, clientSecret);
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  const status = (field: string) => {
    const m = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return m ? Number(m[1]) : 0;
  };
  return {
    child,
    api,
    accountId,
    auth: { authorization: `Bearer ${token}` },
    memory: () => ({ rssKb: status('VmRSS'), peakKb: status('VmHWM') }),
    alive: () => !exited,
    async stop() {
      if (exited) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}
