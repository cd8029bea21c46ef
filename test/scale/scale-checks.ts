/** The scenario and the checks the scale-out test files share (not a test file itself). */
import assert from 'node:assert/strict';
import type { ScaleOptions, ScaleResult } from '../support/scale-harness.ts';

const SERVER = process.env.SPARROW_TEST_SERVER_URL;
const REDIS = process.env.REDIS_URL;

/** Why the scale-out tests cannot run here, or false. */
export const skipScale: string | false = !SERVER
  ? 'needs DATABASE_URL (a PostgreSQL server the processes share; the embedded one is per process)'
  : !REDIS
    ? 'needs REDIS_URL (rate limits shared by the APIs)'
    : false;

const N = 600;
const SINGLES = 20;
const INBOUND = 15;

/** 2 APIs, 3 workers, N recipients, a stream of single sends and inbound texts, chaos. */
export function scenario(pgbouncer: boolean): ScaleOptions {
  return {
    adminUrl: SERVER!,
    redisUrl: REDIS!,
    bulk: N,
    singles: SINGLES,
    inbound: INBOUND,
    apis: 2,
    workers: 3,
    chaos: true,
    pgbouncer,
    timeoutMs: 400_000,
  };
}

export function check(r: ScaleResult, t: { diagnostic: (m: string) => void }) {
  t.diagnostic(
    `carrier: ${r.submissions} submissions of ${r.expected}, ${r.duplicates} duplicates, ${r.lost} lost; ` +
      `webhooks: ${r.webhookEvents} events, ${r.webhookMissing} missing, ${r.webhookRequests} requests; ` +
      `API p99 ${r.p99ApiMs.toFixed(0)} ms over ${r.apiRequests} requests (${r.apiRetries} retried); ${r.carrierLookups} carrier lookups; ${r.chaos.join('; ')}`,
  );
  assert.equal(r.expected, N + SINGLES, 'every send was accepted');
  assert.equal(r.duplicates, 0, 'no message submitted twice');
  assert.equal(r.lost, 0, 'every message submitted');
  assert.equal(r.submissions, r.expected, 'nothing else submitted');
  assert.ok(
    r.webhookEvents >= N + SINGLES + INBOUND,
    'a message-sent per message and a message-received per inbound text',
  );
  assert.equal(r.webhookMissing, 0, 'every event delivered to the webhook');
  assert.equal(r.webhookIdMismatches, 0, 'each webhook-id is its event id on every attempt');
  assert.deepEqual(
    r.chaos.map((c) => c.split(' at ')[0].replace(/ \(exit.*/, '')),
    ['SIGKILL worker', 'worker restarted', 'SIGTERM api 0', 'api 0 back', 'SIGTERM api 1', 'api 1 back'],
  );
  const poolerFaults = r.processErrors.filter((l) =>
    /prepared statement|startup parameter|advisory/i.test(l),
  );
  assert.deepEqual(poolerFaults, [], 'no process met a pooler fault');
  for (const q of ['messages_queued', 'webhook_deliveries', 'dispatch_inflight'])
    assert.ok(q in r.scrapedDuringRun, `queue ${q} read from /metrics during the run`);
}
