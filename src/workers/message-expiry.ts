import { expireMessages } from '../domain/send/expire-messages.ts';
import type { WorkerTask } from './index.ts';

/** Messages one statement expires. */
const BATCH = 5000;

/**
 * Fails queued messages whose validity period ended, refunding them (expireMessages). The
 * dispatcher also checks expiry when it claims a message, so nothing expired is submitted even
 * between two sweeps. Runs every MESSAGE_EXPIRY_SWEEP_SECONDS, at once again while it finds full
 * batches.
 */
export const messageExpiry: WorkerTask = {
  name: 'message-expiry',
  run: async (ctx) => {
    const { single, bulk } = await expireMessages(ctx.db, BATCH);
    return single >= BATCH || bulk >= BATCH ? 0 : ctx.config.messageExpirySweepSeconds * 1000;
  },
};
