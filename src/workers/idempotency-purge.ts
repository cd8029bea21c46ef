import { purgeIdempotencyKeys } from '../domain/housekeeping/purge-idempotency-keys.ts';
import type { WorkerTask } from './index.ts';

/** Deletes Idempotency-Key records older than 24 h, every 10 minutes. */
export const idempotencyPurge: WorkerTask = {
  name: 'idempotency-purge',
  run: async (ctx) => {
    await purgeIdempotencyKeys(ctx.db);
    return 10 * 60_000;
  },
};
