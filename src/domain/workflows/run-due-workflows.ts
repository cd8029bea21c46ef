import { type Db, withTx } from '../../db/client.ts';
import { findVersion, type VersionRow } from '../../db/queries/workflows.ts';
import { claimDueRuns, lockClaimedRun, type RunRow, updateRun } from '../../db/queries/workflows-runs.ts';
import { SYSTEM } from '../actor.ts';
import { executeStep } from './run-step.ts';

/** How long a claimed run is a runner's before another may take it over (seconds). */
export const RUN_LEASE_SECONDS = 60;
/** Steps one claim executes before handing the run back (cycles always pass a wait, so this is a guard). */
const MAX_STEPS_PER_CLAIM = 50;

const RUNNER = { ...SYSTEM, subSource: 'workflow-runner' };

/** Executes a claimed run step by step (one transaction each) until it waits, ends or loses its claim. */
async function advance(db: Db, claimed: RunRow, versions: Map<string, VersionRow>): Promise<void> {
  const token = claimed.claim_token as string;
  for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
    const more = await withTx(db, async (tx) => {
      const run = await lockClaimedRun(tx, claimed.account_id, claimed.id, token);
      if (!run) return false;
      let version = versions.get(run.version_id);
      if (!version) {
        version = await findVersion(tx, run.account_id, run.version_id);
        if (!version) return false;
        versions.set(version.id, version);
      }
      const next = await executeStep(tx, run, version.definition, RUNNER);
      const last = i === MAX_STEPS_PER_CLAIM - 1;
      await updateRun(tx, run.account_id, run.id, last ? { ...next, release: true } : next);
      return next.status === 'active' && !next.release;
    });
    if (!more) return;
  }
}

/**
 * Claims up to `limit` due runs (lease RUN_LEASE_SECONDS, SKIP LOCKED) and advances each.
 * A runner killed mid-run leaves its lease to expire; the next claim resumes at the last committed
 * step. Answers how many runs were claimed.
 */
export async function runDueWorkflows(db: Db, limit: number, log: (msg: string) => void = () => {}) {
  const due = await claimDueRuns(db, limit, RUN_LEASE_SECONDS);
  const versions = new Map<string, VersionRow>();
  for (const run of due) {
    try {
      await advance(db, run, versions);
    } catch (err) {
      log(`workflow run ${run.id}: ${(err as Error).message}`);
    }
  }
  return due.length;
}
