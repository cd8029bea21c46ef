import type { Config } from '../../config.ts';
import { type Db, withTx } from '../../db/client.ts';
import { claimExpiredFiles, deleteFileRows } from '../../db/queries/shared-files.ts';
import { fileStoreFor } from '../../storage/file-store.ts';

/** Files one purge round claims. */
export const PURGE_BATCH = 100;

/**
 * Removes up to PURGE_BATCH expired files, bytes then row, in one transaction whose claim
 * (FOR UPDATE SKIP LOCKED) keeps other workers off them. A file whose bytes cannot be removed
 * keeps its row (and is tried again next round); the others are removed. Answers how many were
 * removed and the failures.
 */
export async function purgeExpiredFiles(
  db: Db,
  config: Config,
): Promise<{ removed: number; failed: { id: string; error: string }[] }> {
  const store = await fileStoreFor(config);
  return withTx(db, async (tx) => {
    const claimed = await claimExpiredFiles(tx, PURGE_BATCH);
    const results = await Promise.allSettled(claimed.map((f) => store.delete(f.storage_key)));
    const done = claimed.filter((_, i) => results[i].status === 'fulfilled');
    await deleteFileRows(tx, done);
    const failed = claimed.flatMap((f, i) => {
      const r = results[i];
      return r.status === 'rejected' ? [{ id: f.id, error: (r.reason as Error).message }] : [];
    });
    return { removed: done.length, failed };
  });
}
