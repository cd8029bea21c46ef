/**
 * Webhook delivery benchmark: N events for one subscription to a local receiver (node:http on
 * 127.0.0.1 answering 200 at once), through the real fan-out and delivery workers with their
 * production settings.
 *   1. throughput: N events already committed, workers started; deliveries/s until all arrived.
 *   2. latency: N/10 (at most 5,000) events emitted at a steady pace below capacity; time from the
 *      event's commit (its created_at) to its arrival at the receiver, p50 / p99.
 * Usage: npm run bench:webhooks [-- N]   (N defaults to 50,000; DATABASE_URL to use a server)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool } from '../src/db/client.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createWebhook } from '../src/domain/webhooks/create-webhook.ts';
import { newId } from '../src/util/ids.ts';
import { startWorkers } from '../src/workers/index.ts';
import { webhookDelivery } from '../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../src/workers/webhook-fanout.ts';
import { benchDatabase, fmt } from './support.ts';

const N = Number(process.argv[2] ?? process.env.BENCH_N ?? 50_000);
const LATENCY_N = Math.min(5_000, Math.max(100, Math.floor(N / 10)));
const LATENCY_RATE = 500; // events per second during the latency phase

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  const database = await benchDatabase();
  const config = {
    ...loadConfig({ ...process.env, DATABASE_URL: database.url }),
    webhooksAllowPrivate: true,
  };
  const db = createPool(database.url, 10);
  const ctx = createContext(config, db);

  const arrivals = new Map<string, number>();
  const latencies: number[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end();
      const now = Date.now();
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) {
        arrivals.set(id, now);
        const { timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
        latencies.push(now - Date.parse(timestamp));
      }
      if (waiting && arrivals.size >= waiting.count) waiting.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      if (arrivals.size >= count) return resolve();
      waiting = { count, resolve };
    });

  const { account } = await createAccount(db, { name: 'Bench' });
  await createWebhook(
    db,
    account.id,
    { url: `http://127.0.0.1:${port}/hook`, eventTypes: ['message-status'] },
    {
      allowPrivate: true,
      by: { id: 'bench' },
      secrets: ctx.secrets,
    },
  );

  const insertEvents = async (count: number) => {
    const ids = Array.from({ length: count }, () => newId());
    await db.query(
      `INSERT INTO events (id, account_id, type, data)
       SELECT id, $2, 'message-status', jsonb_build_object('message', jsonb_build_object('id', id), 'status', 'delivered')
         FROM unnest($1::uuid[]) AS id`,
      [ids, account.id],
    );
  };

  // 1. Throughput from a committed backlog.
  for (let done = 0; done < N; done += 5000) await insertEvents(Math.min(5000, N - done));
  const started = performance.now();
  const workers = startWorkers(ctx, [webhookFanOut(), webhookDelivery()], (m) => console.error(m));
  await until(N);
  const seconds = (performance.now() - started) / 1000;
  console.log(`webhooks: ${fmt(N)} deliveries in ${fmt(seconds, 2)} s = ${fmt(N / seconds)} deliveries/s`);

  // 2. Latency at a steady pace.
  latencies.length = 0;
  const perTick = 10;
  const tickMs = (perTick / LATENCY_RATE) * 1000;
  for (let sent = 0; sent < LATENCY_N; sent += perTick) {
    const tick = performance.now();
    await insertEvents(Math.min(perTick, LATENCY_N - sent));
    const rest = tickMs - (performance.now() - tick);
    if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  }
  await until(N + LATENCY_N);
  const sorted = [...latencies].sort((x, y) => x - y);
  console.log(
    `webhooks: event-to-delivery latency at ${LATENCY_RATE} events/s over ${fmt(LATENCY_N)} events: ` +
      `p50 ${fmt(percentile(sorted, 50))} ms, p99 ${fmt(percentile(sorted, 99))} ms`,
  );
  const { rows } = await db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status ORDER BY status',
  );
  console.log(`webhooks: delivery rows ${rows.map((r) => `${r.status} ${fmt(r.n)}`).join(', ')}`);

  await workers.stop();
  server.closeAllConnections();
  server.close();
  await ctx.close();
  await db.end();
  await database.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
