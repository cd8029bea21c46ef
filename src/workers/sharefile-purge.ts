import { PURGE_BATCH, purgeExpiredFiles } from '../domain/files/purge-expired-files.ts';
import type { WorkerTask } from './index.ts';

/**
 * Removes expired hosted files (bytes and row): a full batch goes on at once, otherwise every
 * minute. Files whose bytes could not be removed are reported (the loop logs them) and retried.
 */
export const sharefilePurge: WorkerTask = {
  name: 'sharefile-purge',
  run: async (ctx) => {
    const { removed, failed } = await purgeExpiredFiles(ctx.db, ctx.config);
    if (failed.length > 0)
      throw new Error(
        `${failed.length} expired files could not be removed (kept for the next round): ${failed
          .slice(0, 3)
          .map((f) => `${f.id}: ${f.error}`)
          .join('; ')}`,
      );
    return removed === PURGE_BATCH ? 0 : 60_000;
  },
};
