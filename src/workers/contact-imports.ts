import { runContactImports } from '../domain/contacts/run-contact-imports.ts';
import type { WorkerTask } from './index.ts';

/** Chunks per round before the loop yields to the others. */
const ROUND = 20;

/**
 * Background contact imports (POST …/contacts/imports): writes chunks of open imports,
 * BULK_CHUNK_SIZE rows per transaction; at once again while there is more, else checks every second.
 */
export const contactImports: WorkerTask = {
  name: 'contact-imports',
  run: async (ctx, signal) => {
    let n = 0;
    while (!signal.aborted && n < ROUND) {
      const ran = await runContactImports(ctx.db, ctx.config.bulkChunkSize, 1, ctx.log);
      if (ran === 0) break;
      n++;
    }
    return n === 0 ? 1000 : 0;
  },
};
