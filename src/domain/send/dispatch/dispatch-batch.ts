import type { AppContext } from '../../../context.ts';
import { withTx } from '../../../db/client.ts';
import { holdForNextDay } from '../../../db/queries/daily-caps.ts';
import { finishRange } from '../../../db/queries/dispatch-ranges.ts';
import {
  type ClaimedMessage,
  claimMessages,
  failCandidates,
  lockDispatchCandidates,
} from '../../../db/queries/message-dispatch.ts';
import { applyReceipts, takeEarlyReceipts } from '../../../db/queries/message-receipts.ts';
import { exhaustedSenders, grantSends } from '../../../db/queries/senders.ts';
import { dispatchBlocker } from './checks.ts';
import { applyDailyCaps } from './daily-caps.ts';
import { LANES, observeRange } from './grain.ts';
import { BatchLease, LeaseLost } from './lease.ts';
import { claimRangeBatch, holdAccount, type RangeClaim } from './ranges.ts';
import { reconcileInflight } from './reconcile.ts';
import { OutcomeRecorder } from './record.ts';
import { routeClaims } from './route.ts';
import { pinOwedLookups } from './settle-uncertain.ts';
import { type Claimed, submitAll } from './submit.ts';

export { MAX_ATTEMPTS, retryDelaySeconds } from './submit.ts';

/** Messages claimed per batch. */
export const BATCH_SIZE = 2000;
/** Poll interval when the queue is empty. */
const IDLE_MS = 100;
/**
 * The express lane (issue 25): beside the LANES lanes, one that passes over the accounts whose
 * ranges they hold and takes at most EXPRESS_GRAIN messages a claim, looking every EXPRESS_LOOK_MS
 * while they send. Each lane holds its range about a second (grain.ts, TURN_MS) and every one may
 * hold one account's big send: another account's one text or 50-recipient send waited for a lane
 * to come free, up to a second at the simulator's pace under load and at a capped carrier alike.
 * Turns and shares are the same (takeTurn): the express lane takes the turn of the next account
 * not being served, and is charged for it as any lane.
 */
const EXPRESS_GRAIN = 100;
const EXPRESS_LOOK_MS = 50;
/** Empty claims in a row after which a lane stops looking while other lanes only claim (dispatchRound). */
const EMPTY_LOOKS = 2;
/**
 * After a claim of one-off messages found none, the round's lanes go straight to the bulk ranges
 * for this long: a stream of small jobs (an SMPP client's windows) would otherwise pay a claim
 * transaction of one-off messages for nothing before each of them.
 */
const SINGLES_QUIET_MS = 50;
const NO_SINGLES = { claimed: [], throttled: false, full: false, found: 0, held: 0 };

/** The result of one dispatch batch. */
export interface BatchResult {
  claimed: number;
  /** Some number's one-second window was used up: there is more work at the next second. */
  throttled: boolean;
  /** The batch was full: there is probably more work right now. */
  full: boolean;
  /** One-off messages found due (claimed, failed or throttled); 0 when none were looked for. */
  singles: number;
  /** Messages held for the next day: their number's or group's daily cap is used up. */
  held: number;
}

/**
 * Claims one batch, in one transaction: locks due messages (FOR UPDATE SKIP LOCKED), fails those
 * whose contact stopped or whose number is gone, asks each number's rate window for slots and a
 * capped number's daily counters for as many, and marks the granted ones `sending`. Rows that got
 * no rate slot are released untouched; those of a number whose daily cap is used up are held for
 * the next day (holdForNextDay).
 */
async function claimBatch(
  ctx: AppContext,
  limit: number,
): Promise<{ claimed: ClaimedMessage[]; throttled: boolean; full: boolean; found: number; held: number }> {
  return withTx(
    ctx.db,
    async (tx) => {
      const exhausted = await exhaustedSenders(tx);
      const candidates = await lockDispatchCandidates(tx, limit, exhausted);
      const failures: Parameters<typeof failCandidates>[1] = [];
      const byNumber = new Map<
        string,
        { accountId: string; mps: number; provider: string; capped: boolean; ids: string[] }
      >();
      for (const c of candidates) {
        const error = dispatchBlocker(ctx, c);
        if (error) {
          failures.push({ accountId: c.account_id, id: c.id, error });
          continue;
        }
        // Past dispatchBlocker the number, its provider and its rate are known.
        const numberId = c.phone_number_id as string;
        let n = byNumber.get(numberId);
        if (!n) {
          n = {
            accountId: c.account_id,
            mps: c.throughput_mps as number,
            provider: c.provider as string,
            capped: c.daily_capped,
            ids: [],
          };
          byNumber.set(numberId, n);
        }
        n.ids.push(c.id);
      }
      await failCandidates(tx, failures);
      // The rate windows are granted in a statement of their own (autocommit, on another connection):
      // the window row's lock is held for that statement only, not for the whole claim, so concurrent
      // claims do not queue behind each other. A claim that then fails leaves its slots unused: the
      // window can only be under-used, never exceeded.
      const { granted: rate, second } = await grantSends(
        ctx.db,
        [...byNumber].map(([phoneNumberId, n]) => ({
          accountId: n.accountId,
          phoneNumberId,
          mps: n.mps,
          wanted: n.ids.length,
        })),
      );
      const daily = await applyDailyCaps(
        ctx,
        rate,
        [...byNumber].map(([phoneNumberId, n]) => ({
          accountId: n.accountId,
          phoneNumberId,
          capped: n.capped,
        })),
      );
      const claims: { accountId: string; id: string; provider: string }[] = [];
      const held: { accountId: string; id: string; day: string }[] = [];
      let throttled = exhausted.length > 0;
      for (const [phoneNumberId, n] of byNumber) {
        const granted = daily.granted.get(phoneNumberId) ?? 0;
        const day = daily.exhausted.get(phoneNumberId);
        if (day !== undefined)
          for (const id of n.ids.slice(granted)) held.push({ accountId: n.accountId, id, day });
        else if (granted < n.ids.length) throttled = true;
        for (const id of n.ids.slice(0, granted))
          claims.push({ accountId: n.accountId, id, provider: n.provider });
      }
      await holdForNextDay(tx, held, ctx.config.quietHoursEnabled);
      const claimed = await claimMessages(tx, claims, ctx.config.dispatchLeaseSeconds, second);
      return {
        claimed,
        throttled,
        full: candidates.length >= limit,
        found: candidates.length,
        held: held.length,
      };
    },
    { indexLookups: true },
  );
}

/**
 * Dispatches one batch: claims one-off messages and retries one by one, fills the rest of the
 * batch with a range of a bulk send, submits concurrently, records the outcomes set-based, then
 * ends the range. A worker killed between claim and record loses nothing: the claim expires and
 * another worker takes it over.
 */
export async function dispatchBatch(
  ctx: AppContext,
  limit = BATCH_SIZE,
  opts: { singles?: boolean; holding?: { count: number }; express?: boolean } = {},
): Promise<BatchResult> {
  const single = opts.singles === false ? NO_SINGLES : await claimBatch(ctx, limit);
  const range =
    single.claimed.length < limit
      ? await claimRangeBatch(ctx, limit - single.claimed.length, { express: opts.express })
      : undefined;
  // A range a lane holds passes its account over for the express lane until it is recorded.
  const release = range?.range && !opts.express ? holdAccount(ctx, range.range.accountId) : undefined;
  try {
    return await handOver(ctx, limit, single, range, opts.holding);
  } finally {
    release?.();
  }
}

async function handOver(
  ctx: AppContext,
  limit: number,
  single: Awaited<ReturnType<typeof claimBatch>>,
  range: RangeClaim | undefined,
  holding: { count: number } | undefined,
): Promise<BatchResult> {
  const claimed: Claimed[] = single.claimed.map((m) => ({ ...m, ranged: false, submittedSecond: null }));
  if (range) claimed.push(...range.claimed);
  await routeClaims(ctx, claimed);
  pinOwedLookups(ctx, claimed);
  if (claimed.length > 0) {
    if (holding) holding.count++;
    const lease = new BatchLease(
      ctx,
      range?.range,
      single.claimed.map((m) => ({ accountId: m.account_id, id: m.id, attempt: m.attempts })),
    );
    const recorder = new OutcomeRecorder(ctx, lease);
    try {
      try {
        const handingFrom = performance.now();
        await submitAll(ctx, claimed, recorder, lease, range?.range);
        // The grain of the range's provider learns how long the provider took to take it (grain.ts).
        if (range?.pace)
          observeRange(ctx, range.pace, range.claimed.length, performance.now() - handingFrom, limit);
      } catch (err) {
        // Record what was acknowledged; the rest stays claimed (its marks, if any, are reconciled).
        await recorder.finish().catch(() => {});
        throw err;
      }
      // The last outcomes and the end of the range in one commit: a range never outlives its
      // recorded outcomes.
      const done = range?.range;
      await recorder.finish(done ? (tx) => finishRange(tx, done, range.complete) : undefined);
    } finally {
      if (holding) holding.count--;
      await lease.stop();
    }
  } else if (range?.range) {
    await finishRange(ctx.db, range.range, range.complete);
  }
  return {
    claimed: claimed.length,
    throttled: single.throttled || (range?.throttled ?? false),
    full: single.full || (range?.full ?? false),
    singles: single.found,
    held: single.held + (range?.held ?? 0),
  };
}

/** Applies receipts that arrived before their submission was recorded. */
async function applyEarlyReceipts(ctx: AppContext): Promise<void> {
  await withTx(
    ctx.db,
    async (tx) => {
      const early = await takeEarlyReceipts(tx);
      if (early.length > 0) await applyReceipts(tx, early);
    },
    { indexLookups: true },
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The next second's start (5 ms into it), after `now`. */
function nextSecondAt(now: number): number {
  return now - (now % 1000) + 1005;
}

/**
 * The lanes a round runs: LANES and the express lane, fewer on a small pool. A lane holds two
 * connections at once (its claim's transaction, and the turn or a rate grant taken on the pool
 * beside it), so LANES lanes on a pool of LANES connections would all wait for a fifth until the
 * connect timeout.
 */
export function lanesFor(db: AppContext['db']): { lanes: number; express: boolean } {
  const max = db.options?.max ?? LANES * 2;
  // Room for the express lane's two connections and two for the process's other tasks (the
  // service's pool of 20): four lanes and the express lane.
  if (max >= 2 * (LANES + 2)) return { lanes: LANES, express: true };
  // Else the lanes the pool has room for, one of them the express lane (a worker's pool of 10:
  // three and the express lane), so that the pool holds no more lanes than before it.
  const lanes = Math.max(1, Math.min(LANES, Math.floor(max / 2)));
  return lanes >= 2 ? { lanes: lanes - 1, express: true } : { lanes, express: false };
}

/**
 * One round of the dispatcher (messages are the queue): runs LANES batches side by side (fewer on
 * a small pool: lanesFor) until the queue is drained or every remaining message waits for its
 * number's next second. Answers the delay to the next round.
 */
export async function dispatchRound(ctx: AppContext, signal: AbortSignal): Promise<number> {
  let throttled = false;
  // A lane that finds the queue empty while another is still sending looks again shortly (what
  // arrives meanwhile is taken at once); so does one that finds it empty while another is still
  // claiming, at most EMPTY_LOOKS times in a row (a stream of small jobs, an SMPP client's windows,
  // keeps every lane at work). The round ends when no lane has messages in hand and the lanes
  // still claiming have looked often enough: lanes that kept each other looking without a bound
  // went on, on a loaded machine where a claim takes longer than the pause, past a retry's backoff
  // and took the message again within the round.
  const holding = { count: 0 };
  let busy = 0;
  /** The round's lanes other than the express lane that have not ended. */
  let running = 0;
  let singlesQuietUntil = 0;
  const lane = async (express = false) => {
    let empty = 0;
    while (!signal.aborted) {
      busy++;
      let r: BatchResult;
      try {
        const singles = Date.now() >= singlesQuietUntil;
        r = express
          ? await dispatchBatch(ctx, EXPRESS_GRAIN, { singles, holding, express })
          : await dispatchBatch(ctx, BATCH_SIZE, { singles, holding });
        if (singles && r.singles === 0) singlesQuietUntil = Date.now() + SINGLES_QUIET_MS;
      } catch (err) {
        ctx.metrics.claimFailure(err instanceof LeaseLost ? 'lease-lost' : 'error');
        throw err;
      } finally {
        busy--;
      }
      if (r.throttled) throttled = true;
      // A batch that took anything may have left more (a full batch, or one small job of many:
      // an SMPP client's window becomes a job of its own): look again at once. So may one that
      // only held messages for the next day (a capped number's rest of a big send).
      if ((r.claimed > 0 || r.held > 0) && (r.full || !r.throttled)) {
        empty = 0;
        continue;
      }
      // Past here a batch that took anything was throttled: the lane ends below either way.
      empty++;
      if (express) {
        // The express lane keeps looking while any other lane of the round runs (ended early, it
        // left a send arriving later to wait for a range to end, a second or more beside a big
        // send), and while the round waits for the next second because an account's numbers used
        // up their rate (for the accounts that did not: such a send waited up to a second).
        const nextSecond = (Math.floor(Date.now() / 1000) + 1) * 1000;
        if (running > 0 || (throttled && Date.now() + EXPRESS_LOOK_MS < nextSecond)) {
          await sleep(EXPRESS_LOOK_MS, signal);
          continue;
        }
        return;
      }
      if (r.throttled || (holding.count === 0 && (busy === 0 || empty >= EMPTY_LOOKS))) return;
      await sleep(IDLE_MS, signal);
    }
  };
  // A provider that cannot be asked right now holds back only the messages it may have: the
  // lanes still run, and the failure is thrown (and logged) after them.
  let unsettled: unknown;
  await reconcileInflight(ctx, ctx.log).catch((err: unknown) => {
    unsettled = err;
  });
  const { lanes, express } = lanesFor(ctx.db);
  running = lanes;
  const regular = () => lane().finally(() => running--);
  await Promise.all([...Array.from({ length: lanes }, regular), ...(express ? [lane(true)] : [])]);
  // The next round is due at the second after the lanes ended, whatever the receipts below take:
  // computed after them, a round ending just before a second waited for the one after (a whole
  // second in which nothing was handed out, another account's one text included).
  const due = throttled ? nextSecondAt(Date.now()) : Date.now() + IDLE_MS;
  await applyEarlyReceipts(ctx);
  if (unsettled) throw unsettled;
  return Math.max(0, due - Date.now());
}
