/**
 * `npm run bench:token`: what a flood of wrong client secrets does to the token endpoint.
 *
 * Against a real listener (default configuration, its own process): 16 connections (autocannon)
 * post wrong secrets for a real client id for DURATION seconds from 127.0.0.1, while a legitimate
 * client asks for a token once a second from 127.0.0.2 (its own address, as a real client would
 * have). Prints the flood's answers by status, the legitimate requests' latencies (the first one
 * pays scrypt; later ones may be remembered), a baseline without the flood, and how many wrong
 * attempts one address gets answered (401) before the first 429, sequentially.
 * Env: DURATION (s, default 10), CONNECTIONS (default 16), MAX_ATTEMPTS (default 700),
 * DATABASE_URL (else embedded PostgreSQL).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { benchDatabase, fmt } from './support.ts';

const duration = Number(process.env.DURATION ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 16);
const maxAttempts = Number(process.env.MAX_ATTEMPTS ?? 700);

interface Target {
  url: string;
  legit: { id: string; secret: string };
  flooded: { id: string };
}

function tokenRequest(url: string, id: string, secret: string, localAddress: string) {
  const payload = JSON.stringify({ grant_type: 'client_credentials', client_id: id, client_secret: secret });
  const started = performance.now();
  return new Promise<{ status: number; ms: number }>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (n: number) => `${fmt(n, 0)} ms`;

async function legitSeries(t: Target, count: number, address: string) {
  const out: { status: number; ms: number }[] = [];
  for (let i = 0; i < count; i++) {
    out.push(await tokenRequest(t.url, t.legit.id, t.legit.secret, address));
    await sleep(1000);
  }
  return out;
}

function describeSeries(s: { status: number; ms: number }[]) {
  const rest = s
    .slice(1)
    .map((x) => x.ms)
    .sort((a, b) => a - b);
  const statuses = [...new Set(s.map((x) => x.status))].join('/');
  return `first ${ms(s[0].ms)}, then median ${ms(rest[Math.floor(rest.length / 2)] ?? 0)}, max ${ms(rest.at(-1) ?? 0)} (status ${statuses})`;
}

async function startServer(databaseUrl: string) {
  const server = spawn(process.execPath, ['--import', 'tsx', 'bench/token-flood-server.ts'], {
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: server.stdout! }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    target: JSON.parse(line) as Target,
    stop: async () => {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    },
  };
}

const database = await benchDatabase();
try {
  // 1. Baseline and flood, on one server.
  let server = await startServer(database.url);
  const t = server.target;
  const baseline = await legitSeries(t, 3, '127.0.0.3');
  const body = JSON.stringify({
    grant_type: 'client_credentials',
    client_id: t.flooded.id,
    client_secret: 'wrong',
  });
  const flood = autocannon({
    url: t.url,
    method: 'POST',
    connections,
    duration,
    headers: { 'content-type': 'application/json' },
    body,
  });
  await sleep(500);
  const during = await legitSeries(t, Math.max(2, duration - 2), '127.0.0.2');
  const r = await flood;
  await server.stop();

  // 2. Wrong attempts answered before the first 429, one at a time, on a fresh server.
  server = await startServer(database.url);
  let answered401 = 0;
  let first429: number | undefined;
  for (let i = 1; i <= maxAttempts; i++) {
    const res = await tokenRequest(server.target.url, server.target.flooded.id, `wrong-${i}`, '127.0.0.4');
    if (res.status === 429) {
      first429 = i;
      break;
    }
    if (res.status === 401) answered401++;
  }
  await server.stop();

  const codes = Object.entries(r.statusCodeStats ?? {})
    .map(([code, v]) => `${code}: ${fmt((v as { count: number }).count)}`)
    .join(', ');
  console.log(
    `\nbench:token — ${connections} connections of wrong secrets for ${duration} s, Node ${process.version}\n`,
  );
  console.log(
    `flood: ${fmt(r.requests.total)} requests (${fmt(r.requests.average)} req/s), answers ${codes}`,
  );
  console.log(`legitimate token, no flood:     ${describeSeries(baseline)}`);
  console.log(`legitimate token, during flood: ${describeSeries(during)}`);
  console.log(
    first429 === undefined
      ? `wrong attempts from one address: ${answered401} answered 401, no 429 within ${maxAttempts}`
      : `wrong attempts from one address: ${answered401} answered 401, the ${first429}th answered 429`,
  );
} finally {
  await database.stop();
}
