import type { AppContext } from '../context.ts';
import { preferIndexLookups, withTx } from '../db/client.ts';
import { finishRange } from '../db/queries/dispatch-ranges.ts';
import {
  applyReceipts,
  type ClaimedMessage,
  claimMessages,
  failCandidates,
  lockDispatchCandidates,
  recordSubmissions,
  type SubmissionOutcome,
  takeEarlyReceipts,
} from '../db/queries/message-dispatch.ts';
import { exhaustedSenders, grantSends } from '../db/queries/senders.ts';
import { ERRORS } from '../errors.ts';
import type { OutboundMessage, Provider, ProviderName, SendResult } from '../providers/types.ts';
import { dispatchBlocker } from './dispatch-checks.ts';
import { claimRangeBatch } from './dispatch-ranges.ts';
import type { WorkerTask } from './index.ts';

/** Messages claimed per batch. */
export const BATCH_SIZE = 2000;
/** Batches in flight at once in one process (one claims while another sends or writes back). */
const LANES = 4;
/** Submissions in flight at once per batch (providers with a window queue beyond it). */
const SEND_CONCURRENCY = 256;
/** Attempts before a retryable failure becomes final. */
export const MAX_ATTEMPTS = 5;
/** Poll interval when the queue is empty. */
const IDLE_MS = 100;

/** Backoff before retry n (1-based): 2 s, 4 s, 8 s, 16 s … capped at 5 minutes. */
export function retryDelaySeconds(attempt: number): number {
  return Math.min(300, 2 ** attempt);
}

/** The result of one dispatch batch. */
export interface BatchResult {
  claimed: number;
  /** Some number's one-second window was used up: there is more work at the next second. */
  throttled: boolean;
  /** The batch was full: there is probably more work right now. */
  full: boolean;
}

/**
 * Claims one batch, in one transaction: locks due messages (FOR UPDATE SKIP LOCKED), fails those
 * whose contact stopped or whose number is gone, asks each number's rate window for slots, and
 * marks the granted ones `sending`. Rows that got no slot are released untouched.
 */
async function claimBatch(
  ctx: AppContext,
  limit: number,
): Promise<{ claimed: ClaimedMessage[]; throttled: boolean; full: boolean }> {
  return withTx(ctx.db, async (tx) => {
    await preferIndexLookups(tx);
    const exhausted = await exhaustedSenders(tx);
    const candidates = await lockDispatchCandidates(tx, limit, exhausted);
    const failures: Parameters<typeof failCandidates>[1] = [];
    const byNumber = new Map<string, { accountId: string; mps: number; provider: string; ids: string[] }>();
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
    const { granted: grants, second } = await grantSends(
      ctx.db,
      [...byNumber].map(([phoneNumberId, n]) => ({
        accountId: n.accountId,
        phoneNumberId,
        mps: n.mps,
        wanted: n.ids.length,
      })),
    );
    const claims: { accountId: string; id: string; provider: string }[] = [];
    let throttled = exhausted.length > 0;
    for (const [phoneNumberId, n] of byNumber) {
      const granted = grants.get(phoneNumberId) ?? 0;
      if (granted < n.ids.length) throttled = true;
      for (const id of n.ids.slice(0, granted))
        claims.push({ accountId: n.accountId, id, provider: n.provider });
    }
    const claimed = await claimMessages(tx, claims, ctx.config.dispatchLeaseSeconds, second);
    return { claimed, throttled, full: candidates.length >= limit };
  });
}

/** A message ready to submit, from either kind of claim. */
interface Claimed extends ClaimedMessage {
  /** From a job range: the row is still `queued` and `attempts` is the attempt being made. */
  ranged: boolean;
  /** The second (Unix) the rate window counted a ranged claim in. */
  submittedSecond: number | null;
}

/** The message a provider is handed for one claim. */
function outbound(m: Claimed): OutboundMessage {
  return {
    id: m.id,
    accountId: m.account_id,
    attempt: m.attempts,
    from: m.from_number,
    to: m.to_number,
    body: m.body,
    encoding: m.encoding,
    segments: m.segments,
    media: m.media ?? [],
  };
}

/** An unexpected fault (connection lost, timeout, provider missing): retried like a retryable failure. */
function faultResult(err: unknown): SendResult {
  return {
    ok: false,
    status: 'failed',
    error: { code: 'MSG-010', description: `${ERRORS['MSG-010'].message} ${(err as Error).message}` },
    retryable: true,
  };
}

/** Maps what the provider answered for one claimed message to the outcome to record. */
function outcomeOf(m: Claimed, result: SendResult, provider: Provider | undefined): SubmissionOutcome {
  const retry = !result.ok && result.retryable && m.attempts < MAX_ATTEMPTS;
  return {
    accountId: m.account_id,
    id: m.id,
    attempt: m.attempts,
    outcome: result.ok ? 'sent' : retry ? 'retry' : 'failed',
    provider: m.provider,
    providerMessageId: result.ok ? result.providerMessageId : null,
    error: result.ok ? null : result.error,
    retryAfterSeconds: retry ? retryDelaySeconds(m.attempts) : 0,
    price: m.price,
    ranged: m.ranged,
    submittedSecond: m.submittedSecond,
    refLookup: !provider?.receiptsNameMessage,
  };
}

/**
 * Submits every claimed message: one call per provider that takes a batch (the simulator), else
 * one submission per message with at most SEND_CONCURRENCY in flight. Answers the outcomes in order.
 */
async function submitAll(ctx: AppContext, claimed: Claimed[]): Promise<SubmissionOutcome[]> {
  const byProvider = new Map<string, number[]>();
  for (let i = 0; i < claimed.length; i++) {
    const name = claimed[i].provider;
    const list = byProvider.get(name);
    if (list) list.push(i);
    else byProvider.set(name, [i]);
  }
  const out = new Array<SubmissionOutcome>(claimed.length);
  for (const [name, indexes] of byProvider) {
    const provider = ctx.providers.get(name as ProviderName);
    if (provider?.sendMany) {
      let results: SendResult[];
      try {
        results = provider.sendMany(indexes.map((i) => outbound(claimed[i])));
      } catch (err) {
        results = indexes.map(() => faultResult(err));
      }
      for (let k = 0; k < indexes.length; k++) {
        out[indexes[k]] = outcomeOf(claimed[indexes[k]], results[k], provider);
      }
      continue;
    }
    await mapLimit(indexes, SEND_CONCURRENCY, async (i) => {
      let result: SendResult;
      try {
        if (!provider) throw new Error(`provider ${name} is not configured`);
        result = await provider.send(outbound(claimed[i]));
      } catch (err) {
        result = faultResult(err);
      }
      out[i] = outcomeOf(claimed[i], result, provider);
    });
  }
  return out;
}

/** Runs fn over items with at most `limit` calls in flight; answers the results in order. */
async function mapLimit<T, U>(items: T[], limit: number, fn: (item: T) => Promise<U>): Promise<U[]> {
  const out = new Array<U>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Dispatches one batch: claims one-off messages and retries one by one, fills the rest of the
 * batch with a range of a bulk send, submits concurrently, records the outcomes set-based, then
 * ends the range. A worker killed between claim and record loses nothing: the claim expires and
 * another worker takes it over.
 */
export async function dispatchBatch(ctx: AppContext, limit = BATCH_SIZE): Promise<BatchResult> {
  const single = await claimBatch(ctx, limit);
  const range =
    single.claimed.length < limit ? await claimRangeBatch(ctx, limit - single.claimed.length) : undefined;
  const claimed: Claimed[] = single.claimed.map((m) => ({ ...m, ranged: false, submittedSecond: null }));
  if (range) claimed.push(...range.claimed);
  if (claimed.length > 0) {
    const outcomes = await submitAll(ctx, claimed);
    await withTx(ctx.db, async (tx) => {
      await preferIndexLookups(tx);
      await recordSubmissions(tx, outcomes);
      // In the same commit: one WAL flush per batch, and a range never outlives its recorded outcomes.
      if (range?.range) await finishRange(tx, range.range, range.complete);
    });
  } else if (range?.range) {
    await finishRange(ctx.db, range.range, range.complete);
  }
  return {
    claimed: claimed.length,
    throttled: single.throttled || (range?.throttled ?? false),
    full: single.full || (range?.full ?? false),
  };
}

/** Applies receipts that arrived before their submission was recorded. */
async function applyEarlyReceipts(ctx: AppContext): Promise<void> {
  await withTx(ctx.db, async (tx) => {
    await preferIndexLookups(tx);
    const early = await takeEarlyReceipts(tx);
    if (early.length > 0) await applyReceipts(tx, early);
  });
}

function msToNextSecond(): number {
  return 1000 - (Date.now() % 1000) + 5;
}

/**
 * The dispatcher: messages are the queue. Each round runs LANES batches side by side until the
 * queue is drained or every remaining message waits for its number's next second.
 */
export const dispatch: WorkerTask = {
  name: 'dispatch',
  run: async (ctx, signal) => {
    let throttled = false;
    const lane = async () => {
      while (!signal.aborted) {
        const r = await dispatchBatch(ctx);
        if (r.throttled) throttled = true;
        if (!r.full || r.claimed === 0) return;
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    await applyEarlyReceipts(ctx);
    return throttled ? msToNextSecond() : IDLE_MS;
  },
};
