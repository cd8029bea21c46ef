/**
 * Prometheus metrics: what the code records, without loading prom-client. Recording is a no-op
 * until `enableMetrics` (METRICS_PORT or METRICS_TOKEN set) loads the registry in ./prom.ts, so a
 * process that serves no metrics pays neither the module's load nor a counter's update.
 */
import type { Db } from '../db/client.ts';

/** What the listeners and workers record (see ./prom.ts for the metric names). */
export interface MetricsRecorder {
  httpRequest(listener: string, method: string, route: string, status: number, seconds: number): void;
  submissions(provider: string, outcome: string, n: number): void;
  receipts(provider: string, status: string, lagSeconds: number): void;
  webhookAttempt(outcome: 'succeeded' | 'failed' | 'retry', seconds: number): void;
  claimFailure(reason: string): void;
  taskError(task: string): void;
  render(db: Db | undefined): Promise<{ contentType: string; body: string }>;
}

let recorder: MetricsRecorder | undefined;
let loading: Promise<MetricsRecorder> | undefined;

/** The recording calls: each does nothing while metrics are off. */
export const metrics = {
  get enabled(): boolean {
    return recorder !== undefined;
  },
  httpRequest(listener: string, method: string, route: string, status: number, seconds: number): void {
    recorder?.httpRequest(listener, method, route, status, seconds);
  },
  /** Provider answers recorded by the dispatcher: outcome `sent`, `retry` or `failed`. */
  submissions(provider: string, outcome: string, n = 1): void {
    if (n > 0) recorder?.submissions(provider, outcome, n);
  },
  /** A delivery receipt applied `lagSeconds` after the provider stamped it. */
  receipt(provider: string, status: string, lagSeconds: number): void {
    recorder?.receipts(provider, status, lagSeconds);
  },
  webhookAttempt(outcome: 'succeeded' | 'failed' | 'retry', seconds: number): void {
    recorder?.webhookAttempt(outcome, seconds);
  },
  /** A dispatcher claim that failed or lapsed (`lease-lost`, `error`). */
  claimFailure(reason: string): void {
    recorder?.claimFailure(reason);
  },
  /** A worker task round that threw. */
  taskError(task: string): void {
    recorder?.taskError(task);
  },
};

/** Loads prom-client and starts recording (idempotent). */
export function enableMetrics(role: string): Promise<MetricsRecorder> {
  loading ??= import('./prom.ts').then(({ createRecorder }) => {
    recorder = createRecorder(role);
    return recorder;
  });
  return loading;
}

/** The exposition text: counters, plus the pool and queue gauges read now from `db`. */
export async function renderMetrics(db: Db | undefined): Promise<{ contentType: string; body: string }> {
  const r = recorder ?? (await enableMetrics('unknown'));
  return r.render(db);
}
