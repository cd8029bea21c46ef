import { randomUUID } from 'node:crypto';
import { type Db, type Queryable, withTx } from '../db/client.ts';
import {
  type Claim,
  claimDue,
  lockDue,
  type QueueSpec,
  retryClaim,
  retryLocked,
} from '../db/queries/claim.ts';

/**
 * The worker side of the claim helper (`db/queries/claim.ts` holds the SQL): claim a batch, work
 * each item, and for each failure log it through the worker's logger (ctx.log) and retry it after
 * an exponential backoff, up to a maximum of attempts. Every queue of `src/workers` goes through
 * here or through `eachItem`, but the dispatcher's (domain/send/dispatch), which shares only the
 * Backoff (docs/architecture.md says why).
 */

/**
 * Exponential backoff: base · factor^(attempt − 1), at most maxMs (or an explicit `schedule`);
 * given up after maxAttempts.
 */
export interface Backoff {
  baseMs: number;
  /** The waits after attempt 1, 2, … in ms (the last one repeats), instead of the formula. */
  schedule?: readonly number[];
  /** Growth per attempt (2). */
  factor?: number;
  maxMs: number;
  /** Attempts before the item is given up (`giveUp`); none: retried for ever at maxMs. */
  maxAttempts?: number;
}

/** The wait before the next try after `attempts` failed ones (1 → baseMs). */
export function backoffMs(b: Backoff, attempts: number): number {
  const n = Math.max(attempts, 1) - 1;
  if (b.schedule && b.schedule.length > 0)
    return Math.min(b.maxMs, b.schedule[Math.min(n, b.schedule.length - 1)]);
  return Math.min(b.maxMs, b.baseMs * (b.factor ?? 2) ** n);
}

/**
 * Where a worker's lines go (ctx.log), and how a failed item is counted as its queue's task error
 * (`taskError`: ctx.log has it, counting in the service's metrics; a bare function counts nothing).
 */
export type Log = ((msg: string) => void) & { taskError?: (queue: string) => void };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Works each item with `handle`; a failure is logged as `<queue> <item>: <error>` (and counted as
 * the queue's task error) and handed to `onFailure` (retry, count an attempt, give up); one item's
 * failure never stops the others. Answers how many succeeded and failed.
 */
export async function eachItem<T>(
  log: Log,
  queue: string,
  items: readonly T[],
  describe: (item: T) => string,
  handle: (item: T) => Promise<void>,
  onFailure?: (item: T, err: unknown) => Promise<void>,
): Promise<{ done: number; failed: number }> {
  let done = 0;
  let failed = 0;
  for (const item of items) {
    try {
      await handle(item);
      done++;
    } catch (err) {
      failed++;
      log.taskError?.(queue);
      log(`${queue} ${describe(item)}: ${message(err)}`);
      if (onFailure) {
        try {
          await onFailure(item, err);
        } catch (e) {
          log(`${queue} ${describe(item)}: recording the failure failed: ${message(e)}`);
        }
      }
    }
  }
  return { done, failed };
}

/** A leased queue as a worker runs it. */
export interface LeasedQueue<T> {
  /** Used in log lines and metrics. */
  name: string;
  spec: QueueSpec;
  leaseSeconds: number;
  backoff: Backoff;
  /** The item's key values in the order of spec.key. */
  key: (item: T) => readonly unknown[];
  /** The attempts made, counting this one (the claim counts it); none: 1. */
  attempts?: (item: T) => number;
  /** How the item reads in a log line. */
  describe: (item: T) => string;
  /** Assignments the claim adds and what it answers (see claimSql). */
  set?: string;
  returning?: string;
  /** Narrows the due items (SQL over alias `q`; its placeholders from $4, values in `params`). */
  where?: string;
  params?: unknown[];
  /** After the last attempt failed: ends the item for good (the helper logs it). */
  giveUp?: (db: Queryable, item: T, claim: Claim, err: unknown) => Promise<void>;
}

/**
 * One round of a leased queue: claims up to `limit` due items under a fresh token and works each
 * with `handle` (which completes it through its token). A failure is logged and the item retried
 * after the backoff, or given up after backoff.maxAttempts. Answers how many were claimed.
 */
export async function runLeased<T>(
  db: Queryable,
  log: Log,
  q: LeasedQueue<T>,
  limit: number,
  handle: (item: T, claim: Claim) => Promise<void>,
): Promise<number> {
  const token = randomUUID();
  const items = await claimDue<T>(db, q.spec, limit, q.leaseSeconds, token, {
    set: q.set,
    returning: q.returning,
    where: q.where,
    params: q.params,
  });
  await eachItem(
    log,
    q.name,
    items,
    q.describe,
    (item) => handle(item, { key: q.key(item), token }),
    async (item, err) => {
      const claim = { key: q.key(item), token };
      const attempts = q.attempts?.(item) ?? 1;
      if (q.backoff.maxAttempts !== undefined && attempts >= q.backoff.maxAttempts && q.giveUp) {
        log(`${q.name} ${q.describe(item)}: given up after ${attempts} attempts`);
        await q.giveUp(db, item, claim, err);
        return;
      }
      await retryClaim(db, q.spec, claim, backoffMs(q.backoff, attempts));
    },
  );
  return items.length;
}

/** A locked queue worked one item per transaction. */
export interface LockedQueue<T> {
  name: string;
  spec: QueueSpec;
  describe: (item: T) => string;
  /** The item's key values in the order of spec.key (for the retry). */
  key?: (item: T) => readonly unknown[];
  /** The attempts made before this one (for the backoff). */
  attempts?: (item: T) => number;
  /** With spec.retryAt: a failed item is due again after this backoff. */
  backoff?: Backoff;
}

/**
 * Works up to `limit` items of a locked queue, each in its own transaction that holds its row
 * (the work commits with it, or not at all). A failure is logged and, when the queue can retry
 * (spec.retryAt), the item is due again after the backoff and the round goes on; otherwise the
 * round ends there (the item comes first again next round). Answers how many items were done.
 */
export async function runLocked<T>(
  db: Db,
  log: Log,
  q: LockedQueue<T>,
  limit: number,
  handle: (tx: Queryable, item: T) => Promise<void>,
): Promise<number> {
  let done = 0;
  for (let i = 0; i < limit; i++) {
    let item: T | undefined;
    try {
      const took = await withTx(db, async (tx) => {
        [item] = await lockDue<T>(tx, q.spec, 1);
        if (item === undefined) return false;
        await handle(tx, item);
        return true;
      });
      if (!took) break;
      done++;
    } catch (err) {
      if (item === undefined) throw err;
      log.taskError?.(q.name);
      log(`${q.name} ${q.describe(item)}: ${message(err)}`);
      if (!q.spec.retryAt || !q.key || !q.backoff) break;
      const failed = item;
      const attempts = (q.attempts?.(failed) ?? 0) + 1;
      await withTx(db, (tx) =>
        retryLocked(tx, q.spec, q.key?.(failed) ?? [], backoffMs(q.backoff as Backoff, attempts)),
      );
    }
  }
  return done;
}
