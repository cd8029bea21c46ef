/**
 * The service as `npm start` runs it (`node` with its flags, START_FLAGS, `… start`) in a child process
 * whose open-file limit is `fdLimit` (`ulimit -n`, lowered by the shell that execs it), on free
 * loopback ports, with a bootstrap client: for the connection-flood test and bench:flood. `root`
 * runs another checkout (bench:flood's "before" figures). Its whole output is kept.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { uuidv7 } from 'uuidv7';
import { listenerEnv } from './child-service.ts';
import { START_FLAGS } from './start-flags.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface LimitedService {
  child: ChildProcess;
  port: number;
  externalsPort: number;
  clientId: string;
  clientSecret: string;
  /** Everything the process wrote (stdout and stderr). */
  output(): string;
  alive(): boolean;
  /** Resident set size now and at its peak (kB). */
  memory(): { rssKb: number; peakKb: number };
  /** File descriptors the process holds now. */
  openFds(): number;
  stop(): Promise<void>;
}

export async function startLimitedService(opts: {
  env: Record<string, string>;
  fdLimit?: number;
  root?: string;
}): Promise<LimitedService> {
  const listeners = await listenerEnv();
  const clientId = `flood-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  // As `npm start` runs it (the bundle of src/); a tree from before bin/sparrow.js, through tsx.
  const root = opts.root ?? ROOT;
  const entry = existsSync(path.join(root, 'bin', 'sparrow.js'))
    ? ['bin/sparrow.js']
    : ['--import', 'tsx', 'src/main.ts'];
  const node = [process.execPath, ...START_FLAGS, ...entry, 'start'];
  const child = spawn(
    '/bin/sh',
    ['-c', `${opts.fdLimit ? `ulimit -n ${opts.fdLimit} && ` : ''}exec "$@"`, 'sh', ...node],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...listeners.env,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '1000000',
        BOOTSTRAP_ACCOUNT_ID: uuidv7(),
        BOOTSTRAP_CLIENT_ID: clientId,
        BOOTSTRAP_CLIENT_SECRET: clientSecret,
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const base = `http://127.0.0.1:${listeners.port}`;
  for (let i = 0; ; i++) {
    if (exited) throw new Error(`the service exited while starting:\n${output.slice(-4000)}`);
    if (i > 600) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer /healthz:\n${output.slice(-4000)}`);
    }
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const status = (field: string) => {
    const m = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return m ? Number(m[1]) : 0;
  };
  return {
    child,
    port: listeners.port,
    externalsPort: listeners.externalsPort,
    clientId,
    clientSecret,
    output: () => output,
    alive: () => !exited,
    memory: () => (exited ? { rssKb: 0, peakKb: 0 } : { rssKb: status('VmRSS'), peakKb: status('VmHWM') }),
    openFds: () => {
      try {
        return readdirSync(`/proc/${child.pid}/fd`).length;
      } catch {
        return 0;
      }
    },
    async stop() {
      if (exited) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await done;
      clearTimeout(t);
    },
  };
}
