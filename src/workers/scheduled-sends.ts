import { runScheduledSends } from '../domain/send/accept/run-scheduled-sends.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 20;

/**
 * Runs sends made with `sendAt` when their time comes: checks every second, at once again after a
 * full batch. Each run takes its job inside the send's transaction, so two workers never send it twice.
 */
export const scheduledSends: WorkerTask = {
  name: 'scheduled-sends',
  run: async (ctx) => ((await runScheduledSends(ctx.db, BATCH, ctx.log)) === BATCH ? 0 : 1000),
};
