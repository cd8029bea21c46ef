/** What bench:peer's race needs around its peers: an HTTP client, child processes, the Peer shape. */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';

export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * Closes the agent's idle connections. Between two rounds of a peer the other peer's round runs
 * for seconds, past the server's keep-alive timeout (Sparrow's 5 s): a request written on a
 * connection the server was closing at that moment failed the run (`socket hang up`).
 */
export function closeIdleSockets(): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
}

export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.setTimeout(300_000, () => req.destroy(new Error(`${url.slice(0, 80)}: no answer in 300 s`)));
    req.end(opts.body);
  });
}

/** Runs `count` tasks, `width` at a time. */
export async function pool(count: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Peer {
  name: string;
  /** Root pids whose process trees are this peer's CPU. */
  pids(): number[];
  /** What each of those trees is. */
  cpuParts: string[];
  stop(): Promise<void>;
}

export function spawnLogged(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

export async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
