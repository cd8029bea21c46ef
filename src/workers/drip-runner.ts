import { runDueDrips } from '../domain/drips/run-due-drips.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 50;

/**
 * Sends the drip steps whose time has come (executions' `due_at`, rows in PostgreSQL rather than
 * in-process timers): checks every second, at once again after a full batch. Each execution is
 * claimed with a lease and SKIP LOCKED, so a killed runner's work is taken over when the lease ends.
 */
export const dripRunner: WorkerTask = {
  name: 'drip-runner',
  run: async (ctx) => ((await runDueDrips(ctx.db, BATCH)) === BATCH ? 0 : 1000),
};
