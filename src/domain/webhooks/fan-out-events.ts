import type { Db } from '../../db/client.ts';
import { fanOutQueuedEvents } from '../../db/queries/webhook-deliveries.ts';

/**
 * Turns up to `batch` committed events into deliveries: claims queued events (fed by a trigger on
 * the outbox in each event's own transaction) and inserts one delivery per matching active
 * subscription. SKIP LOCKED keeps processes off each other's events.
 */
export async function fanOutEvents(db: Db, batch: number): Promise<{ events: number; deliveries: number }> {
  return fanOutQueuedEvents(db, batch);
}
