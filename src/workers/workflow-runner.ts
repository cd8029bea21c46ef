import { runDueWorkflows } from '../domain/workflows/run-due-workflows.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 50;

/**
 * Advances due workflow runs (timers are rows: `workflow_runs.due_at`): every 500 ms, at once again
 * after a full batch. Each claim is a lease, each step a transaction keyed by (run, step).
 */
export const workflowRunner: WorkerTask = {
  name: 'workflow-runner',
  run: async (ctx) => ((await runDueWorkflows(ctx.db, BATCH)) === BATCH ? 0 : 500),
};
