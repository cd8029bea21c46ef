import { runContactJobs } from '../domain/jobs/run-contact-jobs.ts';
import type { WorkerTask } from './index.ts';

/** Chunks per round before the loop yields to the others. */
const ROUND = 20;

/**
 * Bulk contact operations (POST …/bulk/contacts): runs chunks of open jobs, BULK_CHUNK_SIZE
 * contacts per transaction; at once again while there is more, else checks every second.
 */
export const bulkContacts: WorkerTask = {
  name: 'bulk-contacts',
  run: async (ctx, signal) => {
    let n = 0;
    while (!signal.aborted && n < ROUND) {
      const ran = await runContactJobs(ctx.db, ctx.config.bulkChunkSize, 1, ctx.log);
      if (ran === 0) break;
      n++;
    }
    return n === 0 ? 1000 : 0;
  },
};
