import { runDueWorkflows } from '../domain/workflows/run-due-workflows.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 50;

/**
 * Advances due workflow runs (timers are rows: `workflow_runs.due_at`): every 500 ms, at once again
 * after a full batch. Each claim is a lease, each step a transaction keyed by (run, step). Texts
 * wait for the end of quiet hours in the recipient's zone (QUIET_HOURS_ENABLED), as campaigns do.
 */
export const workflowRunner: WorkerTask = {
  name: 'workflow-runner',
  run: async (ctx) =>
    (await runDueWorkflows(ctx.db, BATCH, ctx.log, { quietHours: ctx.config.quietHoursEnabled })) === BATCH
      ? 0
      : 500,
};
