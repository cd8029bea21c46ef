import type { Db } from '../../db/client.ts';
import { expireBulkMessages, expireQueuedMessages } from '../../db/queries/message-expiry.ts';

/**
 * Fails up to `batch` queued one-off messages and `batch` bulk messages whose validity period ended
 * (docs/encoding.md), refunding them: those waiting for a retry, a rate slot, a quiet-hours hold or
 * a worker. Answers how many of each; a full batch means there may be more.
 */
export async function expireMessages(db: Db, batch: number): Promise<{ single: number; bulk: number }> {
  const single = await expireQueuedMessages(db, batch);
  const bulk = await expireBulkMessages(db, batch);
  return { single, bulk };
}
