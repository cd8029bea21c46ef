import { fanOutEvents } from '../domain/webhooks/fan-out-events.ts';
import type { WorkerTask } from './index.ts';
import { drain } from './loop.ts';
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
  return drain({
    name: 'webhook-fanout',
    every: opts.idleMs ?? 50,
    batch: opts.batchSize ?? 1000,
    run: async (ctx, batch) => {
      const { events, deliveries } = await fanOutEvents(ctx.db, batch);
      if (deliveries > 0) wakeWebhookDeliveries();
      return events;
    },
  });
}
