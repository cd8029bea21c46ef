import { fanOutEvents } from '../domain/webhooks/fan-out-events.ts';
import type { WorkerTask } from './index.ts';
import { wakeWebhookDeliveries } from './webhook-wake.ts';

/** Settings of the fan-out task. */
export interface FanOutOptions {
  /** Queued events taken per statement. */
  batchSize?: number;
  /** Poll interval when the queue is empty, in ms. */
  idleMs?: number;
}

/**
 * Turns committed events into deliveries: claims queued events (fed by a trigger on the outbox in
 * each event's own transaction) and inserts one delivery per matching active subscription.
 * Runs in as many processes as wanted; SKIP LOCKED keeps them off each other's events.
 */
export function webhookFanOut(opts: FanOutOptions = {}): WorkerTask {
  const batchSize = opts.batchSize ?? 1000;
  const idleMs = opts.idleMs ?? 50;
  return {
    name: 'webhook-fanout',
    run: async (ctx) => {
      const { events, deliveries } = await fanOutEvents(ctx.db, batchSize);
      if (deliveries > 0) wakeWebhookDeliveries();
      return events >= batchSize ? 0 : idleMs;
    },
  };
}
