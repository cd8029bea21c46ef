import type { AppContext } from '../../../context.ts';
import { dropInflight, markInflight } from '../../../db/queries/dispatch-inflight.ts';
import type { RangeRef } from '../../../db/queries/dispatch-ranges.ts';
import type { ClaimedMessage, SubmissionOutcome } from '../../../db/queries/message-dispatch.ts';
import { ERRORS } from '../../../errors.ts';
import { refusedOutright } from '../../../messaging/routing.ts';
import { remainingValidity } from '../../../messaging/validity.ts';
import type { OutboundMessage, Provider, ProviderName, SendResult } from '../../../providers/types.ts';
import { YIELD_EVERY, yieldToLoop } from '../../../util/yield.ts';
import { type Backoff, backoffMs } from '../../claim.ts';
import { type BatchLease, LeaseLost } from './lease.ts';
import { groupSize, type OutcomeRecorder } from './record.ts';
import { lookupDelaySeconds, type Settlement, settleOwed, settleUncertain } from './settle-uncertain.ts';

/** Attempts before a retryable failure becomes final. */
export const MAX_ATTEMPTS = 5;

/**
 * The dispatcher's backoff, in the claim helper's terms (domain/claim.ts): 2 s, 4 s, 8 s, 16 s …
 * capped at 5 minutes, given up after MAX_ATTEMPTS (a retry is recorded set-based per batch, not
 * through retryClaim: see docs/architecture.md, "Workers and their queues").
 */
export const RETRY_BACKOFF: Backoff = { baseMs: 2000, factor: 2, maxMs: 300_000, maxAttempts: MAX_ATTEMPTS };

/** Backoff before retry n (1-based), in seconds (RETRY_BACKOFF). */
export function retryDelaySeconds(attempt: number): number {
  return backoffMs(RETRY_BACKOFF, attempt) / 1000;
}

/** A message ready to submit, from either kind of claim. */
export interface Claimed extends ClaimedMessage {
  /** From a job range: the row is still `queued` and `attempts` is the attempt being made. */
  ranged: boolean;
  /** The second (Unix) the rate window counted a ranged claim in. */
  submittedSecond: number | null;
  /** Its route has a provider after this one that is up (route.ts): a refusal moves it there at once. */
  failover?: boolean;
}

/** The message a provider is handed for one claim. */
export function outbound(
  m: Omit<ClaimedMessage, 'price' | 'provider' | 'media'> & { media: { url: string }[] | null },
): OutboundMessage {
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
    // What is left of the validity period, counted now (the provider passes it on to the carrier).
    validityPeriod: remainingValidity(m.expires_at),
  };
}

/**
 * An unexpected fault (connection lost, timeout, provider missing): retried like a retryable
 * failure, after asking the provider whether it holds the message (settleUncertain).
 */
function faultResult(err: unknown): SendResult {
  return {
    ok: false,
    status: 'failed',
    error: { code: 'MSG-010', description: `${ERRORS['MSG-010'].message} ${(err as Error).message}` },
    retryable: true,
    uncertain: true,
  };
}

/**
 * Maps what the provider answered for one claimed message to the outcome to record. A message that
 * owes a lookup (settle-uncertain.ts) is retried on the lookups' backoff, even past MAX_ATTEMPTS:
 * nothing more was sent.
 */
export function outcomeOf(
  m: Claimed,
  result: SendResult,
  provider: Provider | undefined,
  settled: Omit<Settlement, 'result'> = { handed: true },
): SubmissionOutcome {
  const owed = settled.owed;
  // A refusal with another provider left on the route goes to it at once, even past MAX_ATTEMPTS;
  // so does one this provider alone would refuse (otherProvider: the sender is not its number).
  const failover =
    !owed &&
    !result.ok &&
    (result.retryable || result.otherProvider === true) &&
    m.failover === true &&
    refusedOutright(result.error);
  const retry = !!owed || (!result.ok && ((result.retryable && m.attempts < MAX_ATTEMPTS) || failover));
  const retryAfterSeconds = owed
    ? lookupDelaySeconds(owed.failures)
    : retry && !failover
      ? retryDelaySeconds(m.attempts)
      : 0;
  return {
    accountId: m.account_id,
    id: m.id,
    attempt: m.attempts,
    outcome: result.ok ? 'sent' : retry ? 'retry' : 'failed',
    provider: m.provider,
    providerMessageId: result.ok ? result.providerMessageId : null,
    error: result.ok ? null : result.error,
    retryAfterSeconds,
    price: m.price,
    ranged: m.ranged,
    submittedSecond: m.submittedSecond,
    refLookup: !provider?.receiptsNameMessage,
    handed: settled.handed,
    owed: owed ?? null,
  };
}

/**
 * One message to a provider that answers one at a time: a lookup it owes first (settleOwed: found
 * or still unanswerable, nothing is sent), then the submission, whose unknown fate is looked up
 * at once (settleUncertain).
 */
async function submitOne(
  ctx: AppContext,
  provider: Provider | undefined,
  name: string,
  m: Claimed,
): Promise<Settlement> {
  if (!provider)
    return { result: faultResult(new Error(`provider ${name} is not configured`)), handed: true };
  const owed = await settleOwed(ctx, provider, m, outbound);
  if (owed) return owed;
  if (m.uncertain_since && m.attempts > MAX_ATTEMPTS) {
    // Its last attempt, of unknown fate, is not at the provider: it fails as that attempt would have.
    const error = m.last_error ?? { code: 'MSG-010', description: ERRORS['MSG-010'].message };
    return { result: { ok: false, status: 'failed', error, retryable: false }, handed: false };
  }
  const startedAt = new Date();
  let result: SendResult;
  try {
    result = await provider.send(outbound(m));
  } catch (err) {
    result = faultResult(err);
  }
  return settleUncertain(ctx.db, provider, outbound(m), result, startedAt);
}

/** A counting semaphore: requests for n slots are served whole, first come first served. */
class Limiter {
  private free: number;
  private readonly waiting: { n: number; resolve: () => void }[] = [];
  constructor(size: number) {
    this.free = size;
  }
  acquire(n: number): Promise<void> {
    if (this.waiting.length === 0 && this.free >= n) {
      this.free -= n;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ n, resolve }));
  }
  release(n = 1): void {
    this.free += n;
    while (this.waiting.length > 0 && this.free >= this.waiting[0].n) {
      const next = this.waiting.shift() as { n: number; resolve: () => void };
      this.free -= next.n;
      next.resolve();
    }
  }
}

/** One limiter per provider per process: the lanes share the provider's concurrency. */
const limiters = new WeakMap<AppContext, Map<string, Limiter>>();
function limiterOf(ctx: AppContext, provider: string): Limiter {
  let byProvider = limiters.get(ctx);
  if (!byProvider) {
    byProvider = new Map();
    limiters.set(ctx, byProvider);
  }
  let l = byProvider.get(provider);
  if (!l) {
    l = new Limiter(ctx.config.dispatchInFlight);
    byProvider.set(provider, l);
  }
  return l;
}

/**
 * Submits every claimed message, handing each outcome to the recorder as it arrives. Messages go
 * by provider and claim kind; before any of them leaves, its group is marked in flight
 * (markInflight: one write per group). A provider that takes a batch (the simulator) is one group
 * and one call; others get groups of groupSize (record.ts), one submission per message, at most
 * DISPATCH_IN_FLIGHT (config.dispatchInFlight) in flight per provider in this process. If a mark cannot be written or the
 * batch's lease may have run out (LeaseLost), nothing more is handed over; what is in flight
 * settles, then the error is thrown.
 */
export async function submitAll(
  ctx: AppContext,
  claimed: Claimed[],
  recorder: OutcomeRecorder,
  lease: BatchLease,
  range: RangeRef | undefined,
): Promise<void> {
  const segments = new Map<string, number[]>();
  for (let i = 0; i < claimed.length; i++) {
    const key = `${claimed[i].provider}|${claimed[i].ranged}`;
    const list = segments.get(key);
    if (list) list.push(i);
    else segments.set(key, [i]);
  }
  const leaseSeconds = ctx.config.dispatchLeaseSeconds;
  /** Marks a group in flight (renewing its claim); throws LeaseLost when the claim has lapsed. */
  const mark = async (name: string, indexes: number[]) => {
    const ranged = claimed[indexes[0]].ranged;
    const markedAt = Date.now();
    const id = await markInflight(
      ctx.db,
      {
        provider: name,
        ranged,
        range: ranged ? range : undefined,
        accountIds: indexes.map((i) => claimed[i].account_id),
        ids: indexes.map((i) => claimed[i].id),
        attempts: indexes.map((i) => claimed[i].attempts),
      },
      leaseSeconds,
    );
    if (id === undefined) throw new LeaseLost();
    recorder.group(id, indexes.length);
    lease.opened(id);
    try {
      lease.check(markedAt);
    } catch (err) {
      // The answer came too late to be sure of the claim: nothing of the group leaves; unmark it.
      await dropInflight(ctx.db, [id]).catch(() => {});
      lease.closed([id]);
      throw err;
    }
    return id;
  };

  for (const indexes of segments.values()) {
    const name = claimed[indexes[0]].provider;
    const provider = ctx.providers.get(name as ProviderName);
    if (provider?.sendMany) {
      const groupId = await mark(name, indexes);
      // In slices, the loop given back between them: a range of thousands handed over in one
      // synchronous call held the API's requests and other lanes for tens of milliseconds.
      for (let start = 0; start < indexes.length; start += YIELD_EVERY) {
        if (start > 0) await yieldToLoop();
        const slice = indexes.slice(start, start + YIELD_EVERY);
        let results: SendResult[];
        try {
          results = provider.sendMany(slice.map((i) => outbound(claimed[i])));
        } catch (err) {
          results = slice.map(() => faultResult(err));
        }
        recorder.addAll(
          slice.map((i, k) => outcomeOf(claimed[i], results[k], provider)),
          groupId,
        );
      }
      continue;
    }
    const limiter = limiterOf(ctx, name);
    const size = groupSize(ctx);
    const inFlight: Promise<void>[] = [];
    try {
      for (let start = 0; start < indexes.length; start += size) {
        const group = indexes.slice(start, start + size);
        // Slots first, then the mark, then every message of the group at once: a marked message
        // is one being handed over, and a slot is held until its outcome is recorded, so what a
        // SIGKILL leaves uncertain is at most DISPATCH_IN_FLIGHT messages per provider.
        await limiter.acquire(group.length);
        let groupId: string;
        try {
          groupId = await mark(name, group);
        } catch (err) {
          limiter.release(group.length);
          throw err;
        }
        const id = groupId;
        for (const i of group) {
          inFlight.push(
            (async () => {
              const s = await submitOne(ctx, provider, name, claimed[i]);
              recorder.add(outcomeOf(claimed[i], s.result, provider, s), id, () => limiter.release());
            })(),
          );
        }
      }
    } finally {
      await Promise.all(inFlight);
    }
  }
}
