/** The prom-client registry behind ./metrics.ts: loaded only when metrics are served. */
import client from 'prom-client';
import type { Db } from '../db/client.ts';
import type { MetricsRecorder } from './metrics.ts';
import { readQueues } from './queues.ts';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600];

export function createRecorder(role: string): MetricsRecorder {
  const register = new client.Registry();
  client.collectDefaultMetrics({ register, prefix: 'sparrow_' });
  new client.Gauge({
    name: 'sparrow_info',
    help: 'Constant 1, labelled with the role this process runs (api, worker, all).',
    labelNames: ['role'],
    registers: [register],
  }).set({ role }, 1);
  const requests = new client.Counter({
    name: 'sparrow_http_requests_total',
    help: 'HTTP requests answered, by listener, method, route pattern and status code.',
    labelNames: ['listener', 'method', 'route', 'status'],
    registers: [register],
  });
  const latency = new client.Histogram({
    name: 'sparrow_http_request_duration_seconds',
    help: 'Time from request to answer, by listener, method and route pattern.',
    labelNames: ['listener', 'method', 'route'],
    buckets: SECONDS,
    registers: [register],
  });
  const submissions = new client.Counter({
    name: 'sparrow_messages_submitted_total',
    help: 'Provider answers to submissions, by provider and outcome (sent, retry, failed).',
    labelNames: ['provider', 'outcome'],
    registers: [register],
  });
  const receipts = new client.Counter({
    name: 'sparrow_receipts_total',
    help: 'Delivery receipts received from providers, by provider and status.',
    labelNames: ['provider', 'status'],
    registers: [register],
  });
  const receiptLag = new client.Histogram({
    name: 'sparrow_receipt_lag_seconds',
    help: 'Time from the provider stamping a delivery receipt to Sparrow applying it.',
    labelNames: ['provider'],
    buckets: LAG,
    registers: [register],
  });
  const webhookAttempts = new client.Counter({
    name: 'sparrow_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (succeeded, retry, failed: out of attempts).',
    labelNames: ['outcome'],
    registers: [register],
  });
  const webhookDuration = new client.Histogram({
    name: 'sparrow_webhook_attempt_duration_seconds',
    help: 'Time a webhook receiver took to answer an attempt.',
    buckets: SECONDS,
    registers: [register],
  });
  const claimFailures = new client.Counter({
    name: 'sparrow_dispatch_claim_failures_total',
    help: 'Dispatcher claims that failed (error) or whose lease lapsed before submission (lease-lost).',
    labelNames: ['reason'],
    registers: [register],
  });
  const taskErrors = new client.Counter({
    name: 'sparrow_worker_task_errors_total',
    help: 'Worker task rounds that threw (retried after a second), by task.',
    labelNames: ['task'],
    registers: [register],
  });
  const pool = new client.Gauge({
    name: 'sparrow_db_pool_connections',
    help: 'PostgreSQL pool of this process: connections open (total), idle, and requests waiting for one.',
    labelNames: ['state'],
    registers: [register],
  });
  const poolMax = new client.Gauge({
    name: 'sparrow_db_pool_max',
    help: 'Largest number of connections the pool of this process opens.',
    registers: [register],
  });
  const depth = new client.Gauge({
    name: 'sparrow_queue_depth',
    help: 'Rows waiting in a queue, read from the database at scrape time (the same for every process).',
    labelNames: ['queue'],
    registers: [register],
  });
  const age = new client.Gauge({
    name: 'sparrow_queue_oldest_age_seconds',
    help: 'Age of the oldest row waiting in a queue (for timers: how late the most overdue one is).',
    labelNames: ['queue'],
    registers: [register],
  });
  const queueOk = new client.Gauge({
    name: 'sparrow_queue_scrape_success',
    help: '1 when the queue gauges were read at this scrape, 0 when the query failed or timed out.',
    registers: [register],
  });

  // Route patterns only (no raw URLs: one series per route, not per id); unknown paths share one label.
  return {
    httpRequest(listener, method, route, status, seconds) {
      requests.inc({ listener, method, route, status: String(status) });
      latency.observe({ listener, method, route }, seconds);
    },
    submissions(provider, outcome, n) {
      submissions.inc({ provider, outcome }, n);
    },
    receipts(provider, status, lagSeconds) {
      receipts.inc({ provider, status });
      receiptLag.observe({ provider }, Math.max(0, lagSeconds));
    },
    webhookAttempt(outcome, seconds) {
      webhookAttempts.inc({ outcome });
      webhookDuration.observe(seconds);
    },
    claimFailure(reason) {
      claimFailures.inc({ reason });
    },
    taskError(task) {
      taskErrors.inc({ task });
    },
    async render(db: Db | undefined) {
      if (db) {
        pool.set({ state: 'total' }, db.totalCount);
        pool.set({ state: 'idle' }, db.idleCount);
        pool.set({ state: 'waiting' }, db.waitingCount);
        poolMax.set(db.options.max ?? 10);
        const queues = await readQueues(db).catch(() => undefined);
        queueOk.set(queues ? 1 : 0);
        if (queues) {
          for (const q of queues) {
            depth.set({ queue: q.queue }, q.depth);
            age.set({ queue: q.queue }, q.ageSeconds);
          }
        }
      }
      return { contentType: register.contentType, body: await register.metrics() };
    },
  };
}
