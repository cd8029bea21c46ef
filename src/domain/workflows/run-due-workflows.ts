import { type Db, withTx } from '../../db/client.ts';
import { findRunVersion, type VersionRow } from '../../db/queries/workflows.ts';
import { lockClaimedRun, RUN_QUEUE, type RunRow, updateRun } from '../../db/queries/workflows-runs.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import { SYSTEM } from '../actor.ts';
import { type LeasedQueue, type Log, runLeased } from '../claim.ts';
import { executeStep } from './run-step.ts';

/** How long a claimed run is a runner's before another may take it over (seconds). */
export const RUN_LEASE_SECONDS = 60;
/** Steps one claim executes before handing the run back (cycles always pass a wait, so this is a guard). */
const MAX_STEPS_PER_CLAIM = 50;

const RUNNER = { ...SYSTEM, subSource: 'workflow-runner' };

type EngineVersion = VersionRow & { drip: boolean };

/** Whether arriving at the node only starts a wait (a delay, a reply wait, a drip's reply window). */
function startsWait(version: EngineVersion, nodeId: string): boolean {
  const typeId = version.definition.nodes.find((n) => n.id === nodeId)?.typeId;
  return (
    typeId === 'action.wait' || typeId === 'condition.replied' || (version.drip && typeId === 'action.end')
  );
}

/**
 * How the runner runs: whether quiet hours hold automation texts (QUIET_HOURS_ENABLED), and the
 * service's price table (PRICE_TABLE) its texts are priced by.
 */
export interface RunnerOptions {
  quietHours?: boolean;
  prices: PriceTable;
  /** The per-account budget of steps a minute (default STEPS_PER_MINUTE; tests pass a small one). */
  stepsPerMinute?: number;
}

/**
 * Each account's runs take at most this many steps a minute in one runner process (issue 25): an
 * account whose budget is spent is left out of the claim until the minute is over, so another
 * account's runs are claimed next instead of waiting behind a burst (or a loop) of the first.
 */
export const STEPS_PER_MINUTE = 3000;

/** Steps taken per account in the current minute of one process (one per database pool). */
class StepBudget {
  private windowStart = 0;
  private used = new Map<string, number>();
  constructor(private readonly limit: number) {}
  private roll(now: number) {
    if (now - this.windowStart >= 60_000) {
      this.windowStart = now;
      this.used.clear();
    }
  }
  /** The accounts whose budget is spent this minute. */
  spent(now = Date.now()): string[] {
    this.roll(now);
    return [...this.used].filter(([, n]) => n >= this.limit).map(([a]) => a);
  }
  /** Counts a step; answers whether the account may take another one this minute. */
  take(accountId: string, now = Date.now()): boolean {
    this.roll(now);
    const n = (this.used.get(accountId) ?? 0) + 1;
    this.used.set(accountId, n);
    return n < this.limit;
  }
}
const budgets = new WeakMap<Db, StepBudget>();

/** The runs queue as the runner works it: a failed step is tried again after 1 s, 2 s, 4 s … 5 min. */
const RUNS: LeasedQueue<RunRow> = {
  name: 'workflow-runner',
  spec: RUN_QUEUE,
  leaseSeconds: RUN_LEASE_SECONDS,
  backoff: { baseMs: 1000, maxMs: 5 * 60_000 },
  key: (r) => [r.account_id, r.id],
  attempts: (r) => r.attempts,
  describe: (r) => `run ${r.id}`,
};

/** Executes a claimed run step by step (one transaction each) until it waits, ends or loses its claim. */
async function advance(
  db: Db,
  claimed: RunRow,
  token: string,
  versions: Map<string, EngineVersion>,
  opts: RunnerOptions,
  budget: StepBudget,
): Promise<void> {
  for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
    // Out of budget: the run goes back to the queue, due again, and is claimed after the minute.
    const hold = !budget.take(claimed.account_id);
    const more = await withTx(db, async (tx) => {
      let run = await lockClaimedRun(tx, claimed.account_id, claimed.id, token);
      if (!run) return false;
      let version = versions.get(run.version_id);
      if (!version) {
        version = await findRunVersion(tx, run.account_id, run.version_id);
        if (!version) return false;
        versions.set(version.id, version);
      }
      const step = { drip: version.drip, quietHours: opts.quietHours ?? false, prices: opts.prices };
      let next = await executeStep(tx, run, version.definition, RUNNER, step);
      // A step that leads to a wait starts the wait in its own transaction: no one sees the run
      // between a message and the timer for the next one.
      while (next.status === 'active' && !next.release && startsWait(version, next.nodeId)) {
        await updateRun(tx, run.account_id, run.id, next);
        run = (await lockClaimedRun(tx, claimed.account_id, claimed.id, token)) as RunRow;
        next = await executeStep(tx, run, version.definition, RUNNER, step);
      }
      const last = i === MAX_STEPS_PER_CLAIM - 1 || hold;
      await updateRun(tx, run.account_id, run.id, last ? { ...next, release: true } : next);
      return next.status === 'active' && !next.release && !hold;
    });
    if (!more) return;
  }
}

/**
 * Claims up to `limit` due runs (lease RUN_LEASE_SECONDS, claim token, SKIP LOCKED: the claim
 * helper) and advances each. A failing run is logged and tried again after the backoff; a runner
 * killed mid-run leaves its lease to expire. Either way the next claim resumes at the last
 * committed step. Answers how many runs were claimed.
 */
export async function runDueWorkflows(db: Db, limit: number, log: Log, opts: RunnerOptions) {
  const versions = new Map<string, EngineVersion>();
  const budget = budgets.get(db) ?? new StepBudget(opts.stepsPerMinute ?? STEPS_PER_MINUTE);
  budgets.set(db, budget);
  const spent = budget.spent();
  const queue = spent.length ? { ...RUNS, where: 'q.account_id <> ALL($4::uuid[])', params: [spent] } : RUNS;
  return runLeased(db, log, queue, limit, (run, claim) =>
    advance(db, run, claim.token, versions, opts, budget),
  );
}
