import { PURGE_BATCH, purgeExpiredFiles } from '../domain/files/purge-expired-files.ts';
import { metrics } from '../metrics/metrics.ts';
import type { WorkerTask } from './index.ts';

/**
 * Removes expired hosted files (bytes and row): a full batch goes on at once, otherwise every
 * minute. Each file whose bytes could not be removed is logged and kept for the next round.
 */
export const sharefilePurge: WorkerTask = {
  name: 'sharefile-purge',
  run: async (ctx) => {
    const { removed, failed } = await purgeExpiredFiles(ctx.db, ctx.config);
    for (const f of failed) {
      metrics.taskError('sharefile-purge');
      ctx.log(`sharefile-purge file ${f.id}: ${f.error} (kept for the next round)`);
    }
    return removed === PURGE_BATCH ? 0 : 60_000;
  },
};
