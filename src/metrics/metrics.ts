/**
 * Prometheus metrics: what the code records, without loading prom-client. Recording is a no-op
 * until `Metrics.enable` (METRICS_PORT or METRICS_TOKEN set) loads the registry in ./prom.ts, so a
 * service that serves no metrics pays neither the module's load nor a counter's update.
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

/**
 * One service's metrics (AppContext.metrics; createContext makes one): recording calls that do
 * nothing until `enable` loads prom-client with a registry of this service's own. Nothing is held
 * for the process, so two services in one process count each their own.
 */
export class Metrics {
  private recorder: MetricsRecorder | undefined;
  private loading: Promise<MetricsRecorder> | undefined;

  get enabled(): boolean {
    return this.recorder !== undefined;
  }
  httpRequest(listener: string, method: string, route: string, status: number, seconds: number): void {
    this.recorder?.httpRequest(listener, method, route, status, seconds);
  }
  /** Provider answers recorded by the dispatcher: outcome `sent`, `retry` or `failed`. */
  submissions(provider: string, outcome: string, n = 1): void {
    if (n > 0) this.recorder?.submissions(provider, outcome, n);
  }
  /** A delivery receipt applied `lagSeconds` after the provider stamped it. */
  receipt(provider: string, status: string, lagSeconds: number): void {
    this.recorder?.receipts(provider, status, lagSeconds);
  }
  webhookAttempt(outcome: 'succeeded' | 'failed' | 'retry', seconds: number): void {
    this.recorder?.webhookAttempt(outcome, seconds);
  }
  /** A dispatcher claim that failed or lapsed (`lease-lost`, `error`). */
  claimFailure(reason: string): void {
    this.recorder?.claimFailure(reason);
  }
  /** A worker task round (or a queue item) that threw. */
  taskError(task: string): void {
    this.recorder?.taskError(task);
  }

  /** Loads prom-client and starts recording, labelled with the process's `role` (idempotent: the first role stays). */
  enable(role: string): Promise<MetricsRecorder> {
    this.loading ??= import('./prom.ts').then(({ createRecorder }) => {
      this.recorder = createRecorder(role);
      return this.recorder;
    });
    return this.loading;
  }

  /** The exposition text: counters, plus the pool and queue gauges read now from `db`. */
  async render(db: Db | undefined): Promise<{ contentType: string; body: string }> {
    const r = this.recorder ?? (await this.enable('unknown'));
    return r.render(db);
  }
}
