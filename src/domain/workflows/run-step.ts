import { type Queryable, withSavepoint } from '../../db/client.ts';
import { findContact } from '../../db/queries/contacts.ts';
import type { StoredDefinition } from '../../db/queries/workflows.ts';
import {
  findStep,
  insertStep,
  type RunRow,
  type RunUpdate,
  repliedSince,
} from '../../db/queries/workflows-runs.ts';
import { AppError, recordedError } from '../../errors.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import type { Actor } from '../actor.ts';
import { type Delay, delaySeconds, nextEdge } from './definition.ts';
import { type ActionOutcome, runAction } from './node-actions.ts';

/** What a step recorded: an action's outcome, the start of a wait, an expected failure, or the end of maxDuration. */
type StepOutcome =
  | ActionOutcome
  | { wait: 'delay' | 'reply'; seconds: number }
  | { error: { code: string; description: string } }
  | { expired: true };

/** How the engine runs a step: whether the run's workflow is a drip's, and whether quiet hours hold its texts. */
export interface StepOptions {
  /** The drip rules: an opt-out ends the run as `opted-out`, a failed send as `errored`, a reply window before the end. */
  drip: boolean;
  /** Hold texts until quiet hours end in the recipient's time zone (QUIET_HOURS_ENABLED). */
  quietHours: boolean;
  /** The service's price table (PRICE_TABLE) a send-message step prices by; absent where no step sends. */
  prices?: PriceTable;
}

/** How long a drip's run that sent its last message waits for a reply before it completes (noAction). */
export const REPLY_WINDOW_SECONDS = 24 * 3600;

/** The trigger's maxDuration (days) of a definition, when it has one. */
export function maxDurationOf(def: StoredDefinition): number | null {
  const trigger = def.nodes.find((n) => n.typeId.startsWith('trigger.'));
  const days = trigger?.config.maxDuration;
  return typeof days === 'number' && Number.isInteger(days) && days > 0 ? days : null;
}

const ended = (run: RunRow, status: RunUpdate['status'], error?: RunUpdate['error']): RunUpdate => ({
  status,
  nodeId: run.node_id,
  step: run.step + 1,
  dueInSeconds: null,
  waitingFor: null,
  error: error ?? null,
  release: true,
});

/** The run's next state from a step's outcome. */
function transition(run: RunRow, def: StoredDefinition, o: StepOutcome, opts: StepOptions): RunUpdate {
  const capDays = maxDurationOf(def);
  const u = transitionOf(run, def, o, opts);
  return { ...u, capDays };
}

function transitionOf(run: RunRow, def: StoredDefinition, o: StepOutcome, opts: StepOptions): RunUpdate {
  if ('expired' in o) return { ...ended(run, 'stopped'), endReason: 'expired' };
  if ('error' in o) return ended(run, 'errored', o.error);
  if ('stop' in o) {
    // A drip: an opted-out contact ends the run as opted-out; any other refused send is an error.
    if (opts.drip && o.stop.code === 'CONT-010') return { ...ended(run, 'stopped'), endReason: 'opted-out' };
    if (opts.drip) return ended(run, 'errored', o.stop);
    return ended(run, 'stopped', o.stop);
  }
  if ('end' in o) return ended(run, 'completed');
  if ('wait' in o) {
    return {
      status: 'waiting',
      nodeId: run.node_id,
      step: run.step + 1,
      dueInSeconds: o.seconds,
      waitingFor: o.wait,
      waitSeconds: o.seconds,
      release: true,
    };
  }
  const edge = nextEdge(def, run.node_id, o.next ?? undefined);
  if (!edge) return ended(run, 'completed');
  return {
    status: 'active',
    nodeId: edge.target,
    step: run.step + 1,
    dueInSeconds: 0,
    waitingFor: null,
    release: false,
  };
}

/** Acts for the run's current node (no step recorded yet). */
async function act(
  tx: Queryable,
  run: RunRow,
  def: StoredDefinition,
  by: Actor,
  opts: StepOptions,
): Promise<StepOutcome | 'rewait'> {
  const node = def.nodes.find((n) => n.id === run.node_id);
  if (!node)
    return { error: { code: 'WF-011', description: `Node "${run.node_id}" is not in the version.` } };
  const maxDays = maxDurationOf(def);
  if (maxDays && new Date(run.entered_at).getTime() + maxDays * 86_400_000 <= Date.now())
    return { expired: true };
  // A drip's end: the reply window (a reply meanwhile ends the run as engaged), then completed.
  if (opts.drip && node.typeId === 'action.end' && run.waiting_for === null)
    return { wait: 'delay', seconds: REPLY_WINDOW_SECONDS };
  if (node.typeId === 'action.wait' || node.typeId === 'condition.replied') {
    const kind = node.typeId === 'action.wait' ? 'delay' : 'reply';
    if (run.waiting_for === null) return { wait: kind, seconds: delaySeconds(node.config.delay as Delay) };
    if (kind === 'delay') return { next: null };
    if (run.waiting_since && (await repliedSince(tx, run.account_id, run.contact_id, run.waiting_since))) {
      return { next: 'true' };
    }
    // Woken before the time ran out without a reply (e.g. a text that predates the wait): wait on.
    if (run.wait_until && run.wait_until.getTime() > Date.now()) return 'rewait';
    return { next: 'false' };
  }
  const contact = await findContact(tx, run.account_id, run.contact_id);
  if (!contact) return { stop: recordedError('CONT-002') };
  // The action's writes (a queued message, a charge) roll back alone if it fails expectedly.
  try {
    return await withSavepoint(tx, () =>
      runAction(tx, contact, node, by, { quietHours: opts.quietHours, prices: opts.prices }),
    );
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { error: { code: err.code, description: err.message } };
  }
}

/**
 * Executes the run's current node inside the caller's transaction and answers the run's next
 * state. The step is keyed (run, step number): when a retry finds the key recorded, the node does
 * not act again (nothing is sent twice) and the recorded outcome decides where the run goes.
 */
export async function executeStep(
  tx: Queryable,
  run: RunRow,
  def: StoredDefinition,
  by: Actor,
  opts: StepOptions = { drip: false, quietHours: false },
): Promise<RunUpdate> {
  const done = await findStep(tx, run.account_id, run.id, run.step);
  if (done && done.node_id === run.node_id) return transition(run, def, done.outcome as StepOutcome, opts);
  const outcome = await act(tx, run, def, by, opts);
  if (outcome === 'rewait') {
    const left = Math.max(0, ((run.wait_until as Date).getTime() - Date.now()) / 1000);
    return {
      status: 'waiting',
      nodeId: run.node_id,
      step: run.step,
      dueInSeconds: left,
      waitingFor: 'reply',
      release: true,
    };
  }
  await insertStep(tx, run.account_id, { runId: run.id, step: run.step, nodeId: run.node_id, outcome });
  return transition(run, def, outcome, opts);
}
