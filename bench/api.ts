/**
 * `npm run bench:api`: 50 connections for 10 s (autocannon) against an authenticated
 * GET /v1/accounts/{accountId}/contacts/{contactId} and, in the same run, a bare Fastify route doing
 * the same primary-key lookup through the same pool. Prints req/s, p50/p99 and the ratio.
 * Env: DURATION (s, default 10), CONNECTIONS (default 50), DATABASE_URL (else embedded PostgreSQL).
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { benchDatabase, fmt } from './support.ts';

const duration = Number(process.env.DURATION ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 50);

const database = await benchDatabase();
const server = spawn(process.execPath, ['--import', 'tsx', 'bench/api-server.ts'], {
  env: { ...process.env, BENCH_DATABASE_URL: database.url },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const line = await new Promise<string>((resolve, reject) => {
  readline.createInterface({ input: server.stdout! }).once('line', resolve);
  server.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
});
const target = JSON.parse(line) as { api: string; bare: string; token: string };

async function measure(name: string, url: string, headers: Record<string, string>) {
  // A short warm-up so both sides are measured hot.
  await autocannon({ url, connections, duration: 2, headers });
  const r = await autocannon({ url, connections, duration, headers });
  if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total };
}

try {
  const bare = await measure('bare Fastify + pg lookup', target.bare, {});
  const api = await measure('Sparrow GET contact (auth, scope, envelope)', target.api, {
    authorization: `Bearer ${target.token}`,
  });
  console.log(`\nbench:api — ${connections} connections, ${duration} s each, Node ${process.version}\n`);
  for (const r of [api, bare]) {
    console.log(
      `${r.name.padEnd(46)} ${fmt(r.rps).padStart(8)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms   (${fmt(r.total)} requests)`,
    );
  }
  console.log(`\nratio Sparrow / bare: ${fmt((100 * api.rps) / bare.rps, 1)} %`);
  console.log(`targets: >= 5,000 req/s, p99 < 20 ms, >= 70 % of bare`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await database.stop();
}
