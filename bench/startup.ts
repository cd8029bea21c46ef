/**
 * `npm run bench:startup`: time from launching the service to its first 200 from GET /readyz, on a
 * first start (empty DATA_DIR: initdb, all migrations, the development account) and a warm start
 * (the same DATA_DIR again), each the median of RUNS (default 3). Measured for `npm start` and for
 * the command it runs (`node … bin/sparrow.js start`, without npm's own start-up). The bundle in
 * dist/ is built first, so no run pays for that one-off build.
 * START_COMMAND (run in START_CWD) measures another command instead, e.g. an older checkout's
 * `node --import tsx src/main.ts start`, for a comparison on the same machine at the same load.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBundle } from '../scripts/bundle.js';
import { listenerEnv, ready } from '../test/support/child-service.ts';
import { START_FLAGS } from '../test/support/start-flags.ts';

const runs = Number(process.env.RUNS ?? 3);

const cwd = process.env.START_CWD ?? process.cwd();
const custom = process.env.START_COMMAND?.split(' ');
const commands: Record<string, [string, string[]]> = custom
  ? { [custom.join(' ')]: [custom[0], custom.slice(1)] }
  : {
      'npm start': ['npm', ['start', '--silent']],
      'node bin/sparrow.js start': [process.execPath, [...START_FLAGS, 'bin/sparrow.js', 'start']],
    };

async function untilReady(port: number, child: ChildProcess): Promise<void> {
  let exited = child.exitCode !== null;
  child.once('exit', () => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error('the service exited before it was ready');
    if (await ready(port)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/** One start: milliseconds from spawn to ready, and the CPU the process used until then; then a clean stop. */
async function startOnce(command: [string, string[]], dataDir: string): Promise<{ ms: number; cpu: number }> {
  const listeners = await listenerEnv();
  const { port } = listeners;
  const started = performance.now();
  const child = spawn(command[0], command[1], {
    cwd,
    env: { ...process.env, DATA_DIR: dataDir, ...listeners.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm's child gets the signal too
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    await untilReady(port, child);
    return { ms: performance.now() - started, cpu: cpuMs(child.pid!) };
  } catch (err) {
    throw new Error(`${(err as Error).message}:\n${output}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
    // npm exits at the signal without waiting for the service it started: wait for that to stop.
    while (fs.existsSync(path.join(dataDir, 'server.json'))) await new Promise((r) => setTimeout(r, 50));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs: number[]) =>
  `${(median(xs) / 1000).toFixed(2)} s (runs: ${xs.map((x) => (x / 1000).toFixed(2)).join(', ')})`;

await ensureBundle();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-bench-startup-'));
fs.chmodSync(tmp, 0o755);
try {
  console.log(
    `bench:startup — ${runs} runs each, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}\n`,
  );
  for (const [name, command] of Object.entries(commands)) {
    const first: Array<{ ms: number; cpu: number }> = [];
    const warm: Array<{ ms: number; cpu: number }> = [];
    for (let i = 0; i < runs; i++) {
      const dir = path.join(tmp, `${name.replace(/\W+/g, '-')}-${i}`);
      first.push(await startOnce(command, dir));
      warm.push(await startOnce(command, dir));
    }
    // The process's own CPU until ready (not PostgreSQL's; npm's child is not counted for npm start).
    const cpu = (xs: Array<{ cpu: number }>) =>
      command[0] === 'npm' ? '' : `; Node CPU ${(median(xs.map((x) => x.cpu)) / 1000).toFixed(2)} s`;
    console.log(`${name.padEnd(28)} first start ${fmt(first.map((x) => x.ms))}${cpu(first)}`);
    console.log(`${''.padEnd(28)} warm start  ${fmt(warm.map((x) => x.ms))}${cpu(warm)}`);
  }
  console.log('\ntargets: warm < 2 s, first < 3 s');
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
