import { expireOutbox } from '../domain/smpp/expire-outbox.ts';
import type { WorkerTask } from './index.ts';

/**
 * Drops SMPP receipts and inbound texts no receiver bind took within SMPP_SERVER_KEEP_HOURS, every
 * 10 minutes (SMPP servers do it too; this covers accounts whose credentials exist while no server
 * runs), and submission records well past any receipt.
 */
export const smppOutboxExpiry: WorkerTask = {
  name: 'smpp-outbox-expiry',
  run: async (ctx) => {
    await expireOutbox(ctx.db, ctx.config.smppServer.keepHours);
    return 10 * 60_000;
  },
};
