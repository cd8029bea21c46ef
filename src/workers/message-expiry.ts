import { expireBulkMessages, expireQueuedMessages } from '../db/queries/message-expiry.ts';
import type { WorkerTask } from './index.ts';

/** Messages one statement expires. */
const BATCH = 5000;

/**
 * Fails queued messages whose validity period ended (docs/encoding.md), refunding them: those
 * waiting for a retry, a rate slot, a quiet-hours hold or a worker. The dispatcher also checks
 * expiry when it claims a message, so nothing expired is submitted even between two sweeps. Runs
 * every MESSAGE_EXPIRY_SWEEP_SECONDS, at once again while it finds full batches.
 */
export const messageExpiry: WorkerTask = {
  name: 'message-expiry',
  run: async (ctx) => {
    const single = await expireQueuedMessages(ctx.db, BATCH);
    const bulk = await expireBulkMessages(ctx.db, BATCH);
    return single >= BATCH || bulk >= BATCH ? 0 : ctx.config.messageExpirySweepSeconds * 1000;
  },
};
