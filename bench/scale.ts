/**
 * `npm run bench:scale`: many processes on one PostgreSQL and Redis, counted at the carrier.
 * 2 `sparrow api` + 3 `sparrow worker` processes send N recipients (one bulk send) plus a stream of
 * single sends and inbound texts through the Twilio-compatible provider to a local carrier that
 * records every submission; one worker is killed (SIGKILL) and restarted and the APIs are
 * restarted one after the other (SIGTERM) during the send. Prints submissions, duplicates, lost,
 * webhooks, p99 API latency; then the scaling curve: CURVE_N recipients with 1, 2 and 3 workers.
 *
 * Env: N (100000; 0 skips the main run), CURVE_N (20000; 0 skips the curve), SINGLES (500), INBOUND (300),
 * DATABASE_URL (an admin URL of the server; default postgres://postgres@127.0.0.1:5432/postgres),
 * REDIS_URL (redis://127.0.0.1:6379). Flags: --pgbouncer (every process through PgBouncer in
 * transaction mode), --no-chaos.
 */
import os from 'node:os';
import { runScale, type ScaleResult } from '../test/support/scale-harness.ts';
import { fmt } from './support.ts';

const N = Number(process.env.N ?? 100_000);
const CURVE_N = Number(process.env.CURVE_N ?? 20_000);
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const pgbouncer = process.argv.includes('--pgbouncer');
const chaos = !process.argv.includes('--no-chaos');
const log = (line: string) => console.log(`  ${line}`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function report(r: ScaleResult) {
  console.log(
    `  submissions ${fmt(r.submissions)} (expected ${fmt(r.expected)}), duplicates ${r.duplicates}, lost ${r.lost}`,
  );
  console.log(
    `  webhooks: ${fmt(r.webhookEvents)} events, ${r.webhookMissing} never delivered, ${r.webhookIdMismatches} webhook-id mismatches, ${fmt(r.webhookRequests)} requests`,
  );
  console.log(
    `  throughput at the carrier ${fmt(r.throughput)} msg/s (peak second ${fmt(r.peakPerSecond)}); run ${fmt(r.durationMs / 1000, 1)} s`,
  );
  console.log(
    `  API: ${fmt(r.apiRequests)} requests, p50 ${fmt(r.p50ApiMs, 1)} ms, p99 ${fmt(r.p99ApiMs, 1)} ms, ${r.apiRetries} retried on another API`,
  );
  if (r.processErrors.length)
    console.log(
      `  processes logged ${r.processErrors.length} failure lines, e.g.: ${r.processErrors.slice(0, 3).join(' | ')}`,
    );
  console.log(`  queues scraped from /metrics during the run: ${JSON.stringify(r.scrapedDuringRun)}`);
}

console.log(
  `# bench:scale on ${os.cpus().length} cores, load average ${load()}${pgbouncer ? ', through PgBouncer' : ''}`,
);
let failed = false;
if (N > 0) {
  console.log(
    `\n2 APIs + 3 workers, ${fmt(N)} recipients${chaos ? ', a worker SIGKILLed and the APIs restarted (rolling)' : ''}:`,
  );
  const main = await runScale({
    adminUrl,
    redisUrl,
    bulk: N,
    singles: Number(process.env.SINGLES ?? 500),
    inbound: Number(process.env.INBOUND ?? 300),
    apis: 2,
    workers: 3,
    chaos,
    pgbouncer,
    timeoutMs: 1_800_000,
    log,
  });
  report(main);
  console.log(`  load average after: ${load()}`);
  failed = main.duplicates > 0 || main.lost > 0 || main.webhookMissing > 0 || main.webhookIdMismatches > 0;
}

if (CURVE_N > 0) {
  console.log(`\nscaling curve: ${fmt(CURVE_N)} recipients, 1 API, no single sends, no chaos:`);
  for (const workers of [1, 2, 3]) {
    const r = await runScale({
      adminUrl,
      redisUrl,
      bulk: CURVE_N,
      singles: 0,
      inbound: 0,
      apis: 1,
      workers,
      chaos: false,
      pgbouncer,
    });
    console.log(
      `  ${workers} worker${workers > 1 ? 's' : ' '}: ${fmt(r.throughput)} msg/s at the carrier, duplicates ${r.duplicates}, lost ${r.lost}, ${r.processErrors.length} failure lines logged (load average ${load()})`,
    );
  }
}
process.exit(failed ? 1 : 0);
