import type { Db } from '../../db/client.ts';
import { claimDueExecutions } from '../../db/queries/drips-engine.ts';
import { SYSTEM } from '../actor.ts';
import { runDripStep } from './run-drip-step.ts';

/** How long a runner holds a claimed execution before another may take it over. */
export const STEP_LEASE_SECONDS = 60;

const RUNNER = { ...SYSTEM, subSource: 'drip-runner' };

/**
 * Claims up to `limit` due executions (active, due_at passed, lease free or expired) and runs a
 * step of each. A failure leaves the lease to expire, so the step is retried then (at most once:
 * see runDripStep). Answers how many were claimed.
 */
export async function runDueDrips(
  db: Db,
  limit: number,
  log: (msg: string) => void = () => {},
): Promise<number> {
  const due = await claimDueExecutions(db, limit, STEP_LEASE_SECONDS);
  for (const e of due) {
    try {
      await runDripStep(db, e, RUNNER);
    } catch (err) {
      log(`drip execution ${e.id}: ${(err as Error).message}`);
    }
  }
  return due.length;
}
