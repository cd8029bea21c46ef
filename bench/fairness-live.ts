/**
 * `npm run bench:fairness-live` (issue 25, its black-box check): two accounts on one `npm start`,
 * driven only through the API, the public listener and the CLI, as a user would.
 *
 * Starts `node --max-old-space-size=256 bin/sparrow.js start` (what `npm start` runs) in a new
 * DATA_DIR, makes a second account B with the CLI, raises both accounts' numbers to 10,000 msg/s
 * (so that only Sparrow's scheduling is measured), then for each round:
 *
 * 1. B alone: one text (POST → the message `sent`) and a 50-recipient send (POST → the job
 *    `completed`), each ALONE times, the median kept;
 * 2. A posts BIG texts (calls of 2,000 named mobiles, 4 at a time); when half of A's calls are
 *    accepted (A's calls still coming, its first ones dispatching) B sends one text and then 50 texts,
 *    and again as soon as all of A's are accepted: the same two times beside A's send, and the
 *    50 texts' ratio to alone.
 * 3. A's send is waited for (every job `completed`) before the next round.
 *
 * Targets (issue 25): one text < 1 s; 50 texts within 3× alone.
 * Env: BIG (100000), ROUNDS (3), ALONE (3), PORT (3400; EXTERNALS_PORT is PORT + 1), PROFILE (a
 * directory: the server's CPU profile is written there when it stops), DEBUG (B's POST times).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { START_FLAGS } from '../test/support/start-flags.ts';
import { atATime, median } from './support.ts';

const BIG = Number(process.env.BIG ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ALONE = Number(process.env.ALONE ?? 3);
const PORT = Number(process.env.PORT ?? 3400);
const CALL = 2000;
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'sparrow-fairness-'));
const env = { ...process.env, DATA_DIR: dataDir, PORT: String(PORT), EXTERNALS_PORT: String(PORT + 1) };
const base = `http://127.0.0.1:${PORT}`;
let mobile = 0;
/** How long B's POSTs took (answered), in order, printed beside the totals (DEBUG=1). */
const posts: number[] = [];

interface Account {
  name: string;
  id: string;
  token: string;
  number: string;
}

const server = await startServer();
try {
  const a = await devAccount();
  const b = await cliAccount('B');
  console.log(`fairness-live: BIG ${BIG}, ${ROUNDS} rounds; ${dataDir}`);
  for (let round = 1; round <= ROUNDS; round++) {
    const oneAlone = median(await repeat(ALONE, () => oneText(b)));
    const fiftyAlone = median(await repeat(ALONE, () => fifty(b)));
    // Beside A's send while A's calls are still being accepted (half of them in), then right after.
    const t0 = performance.now();
    let half: () => void = () => {};
    const halfIn = new Promise<void>((r) => {
      half = r;
    });
    const accepting = bigSend(a, half);
    await halfIn;
    const oneDuring = await oneText(b);
    const fiftyDuring = await fifty(b);
    const jobs = await accepting;
    const accepted = performance.now() - t0;
    const oneAfter = await oneText(b);
    const fiftyAfter = await fifty(b);
    for (const id of jobs) await jobDone(a, id, 600_000, 250);
    const whole = performance.now() - t0;
    console.log(
      `round ${round}: alone: one text ${ms(oneAlone)}, 50 texts ${ms(fiftyAlone)}; ` +
        `while A's calls are accepted: ${ms(oneDuring)}, ${ms(fiftyDuring)} (${ratio(fiftyDuring, fiftyAlone)}); ` +
        `right after: ${ms(oneAfter)}, ${ms(fiftyAfter)} (${ratio(fiftyAfter, fiftyAlone)}); ` +
        `A's ${BIG} accepted in ${ms(accepted)}, all sent in ${ms(whole)}`,
    );
    if (process.env.DEBUG) console.log(`  B's POSTs answered in: ${posts.splice(0).map(ms).join(', ')}`);
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

async function startServer(): Promise<ChildProcess> {
  const profile = process.env.PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, ...START_FLAGS, 'bin/sparrow.js', 'start'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('workers running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`sparrow start exited (${code}):\n${out}`)));
  });
  child.stdout?.resume();
  return child;
}

async function devAccount(): Promise<Account> {
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  await cli('accounts', 'credit', creds.accountId, '1000000');
  return account('A', creds.accountId, creds.clientId, creds.clientSecret);
}

async function cliAccount(name: string): Promise<Account> {
  const made = await cli('accounts', 'create', '--name', name, '--balance', '100000');
  const id = made.match(/[0-9a-f]{8}-[0-9a-f-]{27}/)?.[0];
  if (!id) throw new Error(`no account id in: ${made}`);
  const client = await cli('clients', 'create', '--account', id);
  const clientId = client.match(/cl_[\w-]+/)?.[0];
  const secret = client.match(/cs_[\w-]+/)?.[0];
  if (!clientId || !secret) throw new Error(`no client in: ${client}`);
  return account(name, id, clientId, secret);
}

async function cli(...args: string[]): Promise<string> {
  const { stdout, stderr } = await run(process.execPath, ['bin/sparrow.js', ...args], { cwd: root, env });
  return stdout + stderr;
}

/** A token, a number (bought when the account has none) at 10,000 msg/s. */
async function account(name: string, id: string, clientId: string, clientSecret: string): Promise<Account> {
  const tok = await api('', 'POST', '/oauth2/token', {
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  });
  const acc: Account = { name, id, token: tok.access_token, number: '' };
  let numbers = (await api(acc.token, 'GET', `/v1/accounts/${id}/phonenumbers`)).data;
  if (numbers.length === 0) {
    const offered = (await api(acc.token, 'GET', `/v1/accounts/${id}/availablephonenumbers?country=US`)).data;
    await api(acc.token, 'POST', `/v1/accounts/${id}/phonenumbers`, { number: offered[0].number });
    numbers = (await api(acc.token, 'GET', `/v1/accounts/${id}/phonenumbers`)).data;
  }
  for (const n of numbers) {
    await api(acc.token, 'PUT', `/v1/accounts/${id}/phonenumbers/${n.id}`, { throughput: 10_000 });
  }
  acc.number = numbers[0].number;
  return acc;
}

async function api(token: string, method: string, url: string, json?: unknown) {
  const res = await fetch(base + url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 400)}`);
  return JSON.parse(text);
}

function mobiles(n: number) {
  return Array.from({ length: n }, () => ({ mobile: { number: `+1202${2_000_000 + mobile++}` } }));
}

function send(acc: Account, n: number) {
  return api(acc.token, 'POST', `/v1/accounts/${acc.id}/messages`, {
    contacts: mobiles(n),
    template: 'Fair share',
  });
}

/** POST → the message `sent` (handed to the carrier). */
async function oneText(acc: Account): Promise<number> {
  const t0 = performance.now();
  const id = (await send(acc, 1)).data.messages[0].id;
  posts.push(performance.now() - t0);
  await until(async () => {
    const m = (await api(acc.token, 'GET', `/v1/accounts/${acc.id}/messages/${id}`)).data;
    return m.status !== 'queued';
  }, 60_000);
  return performance.now() - t0;
}

/** POST → the job `completed` (every message left the queue). */
async function fifty(acc: Account): Promise<number> {
  const t0 = performance.now();
  const job = (await send(acc, 50)).data.jobId;
  posts.push(performance.now() - t0);
  await jobDone(acc, job, 60_000);
  return performance.now() - t0;
}

/** A's BIG texts, 4 calls at a time; `half` is called when half of the calls are accepted. */
async function bigSend(acc: Account, half: () => void): Promise<string[]> {
  const calls = Math.ceil(BIG / CALL);
  let accepted = 0;
  return atATime(calls, 4, async () => {
    const job = (await send(acc, CALL)).data.jobId as string;
    if (++accepted === Math.ceil(calls / 2)) half();
    return job;
  });
}

async function jobDone(acc: Account, id: string, timeout: number, every = 5) {
  await until(
    async () => {
      const job = (await api(acc.token, 'GET', `/v1/accounts/${acc.id}/jobs/${id}`)).data;
      if (job.status === 'failed' || job.status === 'cancelled') throw new Error(`job ${id} ${job.status}`);
      return job.status === 'completed';
    },
    timeout,
    every,
  );
}

async function until(check: () => Promise<boolean>, timeout: number, every = 5) {
  const end = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, every));
  }
}

async function repeat(n: number, f: () => Promise<number>) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
}

function ratio(x: number, alone: number) {
  return `${(x / alone).toFixed(1)}×`;
}

function ms(x: number) {
  return `${Math.round(x)} ms`;
}
