import { handleTriggers } from '../domain/workflows/handle-triggers.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 100;

/**
 * Turns queued causes (contact created, list joined, inbound text, opt-out; written by database
 * triggers in the cause's transaction) into enrollments, reply wake-ups and stopped runs.
 */
export const workflowEnroll: WorkerTask = {
  name: 'workflow-enroll',
  run: async (ctx) => ((await handleTriggers(ctx.db, BATCH, ctx.log)) === BATCH ? 0 : 500),
};
