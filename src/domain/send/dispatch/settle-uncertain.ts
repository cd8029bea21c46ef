import type { AppContext } from '../../../context.ts';
import type { Queryable } from '../../../db/client.ts';
import { claimProviderRef } from '../../../db/queries/dispatch-inflight.ts';
import type { ClaimedMessage } from '../../../db/queries/message-dispatch.ts';
import { ERRORS } from '../../../errors.ts';
import type {
  LookupMatch,
  OutboundMessage,
  Provider,
  ProviderName,
  SendResult,
} from '../../../providers/types.ts';
import { type Backoff, backoffMs } from '../../claim.ts';

/**
 * Lookups of an attempt of unknown fate that could not be made (a live one's, and those of a dead
 * worker's group: reconcile.ts) are made again on this backoff (the dispatcher's: 2 s, 4 s, …
 * 128 s) until 8 have failed, about 4 minutes plus the lookups' own timeouts; only then does
 * DELIVERY_GUARANTEE decide (README, "Exactly once at the carrier").
 */
export const LOOKUP_BACKOFF: Backoff = { baseMs: 2000, factor: 2, maxMs: 300_000, maxAttempts: 8 };

/** Seconds before the lookup after `failures` failed ones. */
export function lookupDelaySeconds(failures: number): number {
  return backoffMs(LOOKUP_BACKOFF, failures) / 1000;
}

/** Whether `failures` failed lookups are the bound: DELIVERY_GUARANTEE decides, nobody asks again. */
export function lookupsExhausted(failures: number): boolean {
  return failures >= (LOOKUP_BACKOFF.maxAttempts ?? 1);
}

/** A provider that can be asked what it holds. */
export type AskableProvider = Provider & { lookup: NonNullable<Provider['lookup']> };

/** A lookup still owed before any resend: when the attempt of unknown fate began, lookups failed so far. */
export interface OwedLookup {
  since: Date;
  failures: number;
}

/** What an attempt came to once settled: the result to record, and whether it owes a lookup. */
export interface Settlement {
  result: SendResult;
  /** Something was handed to the provider under this claim (false: a lookup alone decided). */
  handed: boolean;
  /** Set when the lookup could not be made: the message is retried owing it, never resent before. */
  owed?: OwedLookup;
}

/** The error of a message whose fate at the provider could not be learnt, failed under at-most-once. */
export const UNKNOWN_FATE = { code: 'MSG-020', description: ERRORS['MSG-020'].message };

/**
 * The candidates in the order they are tried: the closest to the attempt's start first (two
 * identical texts to one person are told apart by time), those without a time last, in the
 * provider's order.
 */
export function byCloseness(found: LookupMatch[], since: Date): LookupMatch[] {
  const distance = (m: LookupMatch) =>
    m.at ? Math.abs(m.at.getTime() - since.getTime()) : Number.POSITIVE_INFINITY;
  return found
    .map((m, k) => ({ m, k, d: distance(m) }))
    .sort((a, b) => a.d - b.d || a.k - b.k)
    .map((x) => x.m);
}

/**
 * Asks the provider for this submission and takes the closest match no other message holds
 * (claimProviderRef: each carrier id goes to one message, atomically across workers). Answers the
 * match, or undefined when the provider holds none that is free. Throws when the provider cannot
 * be asked (or the id cannot be recorded).
 */
export async function lookUpAndTake(
  db: Queryable,
  provider: AskableProvider,
  message: OutboundMessage,
  since: Date,
  found?: LookupMatch[],
): Promise<LookupMatch | undefined> {
  const candidates = byCloseness(found ?? (await provider.lookup(message, since)), since);
  for (const match of candidates) {
    if (await claimProviderRef(db, provider.name, match.providerMessageId, message)) return match;
  }
  return undefined;
}

/** The result a match found at the provider stands for (failed: the carrier rejected it). */
function matchResult(match: LookupMatch, fallback: SendResult): SendResult {
  if (match.status === 'sent')
    return { ok: true, status: 'sent', providerMessageId: match.providerMessageId };
  return {
    ok: false,
    status: 'failed',
    error: match.error ?? (fallback.ok ? UNKNOWN_FATE : fallback.error),
    retryable: false,
  };
}

/**
 * An attempt of unknown fate (`uncertain`: no answer in time, the connection lost) at a provider
 * that can be asked (Twilio lists its Messages) is looked up there before it may be retried:
 * found → the provider's answer (sent with its id, or its rejection), never resent; not found →
 * the retry as before. A lookup that cannot be made now leaves the message owing it (`owed`): it
 * is retried on LOOKUP_BACKOFF, and the next claim asks again before sending anything
 * (settleOwed). Other results pass through unchanged.
 */
export async function settleUncertain(
  db: Queryable,
  provider: Provider,
  message: OutboundMessage,
  result: SendResult,
  since: Date,
): Promise<Settlement> {
  if (result.ok || !result.uncertain || !provider.lookup) return { result, handed: true };
  const askable = provider as AskableProvider;
  try {
    const match = await lookUpAndTake(db, askable, message, since);
    return { result: match ? matchResult(match, result) : result, handed: true };
  } catch {
    return { result, handed: true, owed: { since, failures: 1 } };
  }
}

/**
 * Before a claim that owes a lookup (its previous attempt's fate is unknown and could not be looked
 * up) sends anything: asks the provider again for that attempt. Found → its answer, nothing sent;
 * not found → undefined: the message is sent. Failing again → retried owing it, until
 * LOOKUP_BACKOFF's attempts have failed; then DELIVERY_GUARANTEE decides: at-least-once sends it
 * (undefined), at-most-once fails it with MSG-020 (refunded). Answers undefined for a claim that
 * owes nothing.
 */
export async function settleOwed(
  ctx: AppContext,
  provider: Provider,
  m: ClaimedMessage,
  outbound: (m: ClaimedMessage) => OutboundMessage,
): Promise<Settlement | undefined> {
  if (!m.uncertain_since || !provider.lookup) return undefined;
  const askable = provider as AskableProvider;
  const since = m.uncertain_since;
  // The attempt of unknown fate is the one before this claim's (a lookup alone does not count one).
  const message = outbound({ ...m, attempts: m.attempts - 1 });
  const uncertain: SendResult = {
    ok: false,
    status: 'failed',
    error: m.last_error ?? UNKNOWN_FATE,
    retryable: true,
    uncertain: true,
  };
  try {
    const match = await lookUpAndTake(ctx.db, askable, message, since);
    return match ? { result: matchResult(match, uncertain), handed: false } : undefined;
  } catch (err) {
    const failures = (m.lookup_failures ?? 0) + 1;
    if (!lookupsExhausted(failures)) return { result: uncertain, handed: false, owed: { since, failures } };
    const policy = ctx.config.deliveryGuarantee;
    ctx.log(
      `dispatch: message ${m.id}: ${failures} lookups at ${provider.name} failed (${(err as Error).message}): ${
        policy === 'at-most-once' ? 'failed (at-most-once)' : 'sent again (at-least-once)'
      }`,
    );
    if (policy === 'at-most-once')
      return {
        result: { ok: false, status: 'failed', error: UNKNOWN_FATE, retryable: false },
        handed: false,
      };
    return undefined;
  }
}

/**
 * A claim that owes a lookup goes to the provider that took its attempt of unknown fate (where the
 * lookup must be made and, if the message is not there, the resend stays), whatever its number's
 * provider is now. Call after routing.
 */
export function pinOwedLookups(ctx: AppContext, claimed: (ClaimedMessage & { failover?: boolean })[]): void {
  for (const m of claimed) {
    if (!m.uncertain_since || !m.last_provider || m.last_provider === m.provider) continue;
    if (!ctx.providers.get(m.last_provider as ProviderName)) continue;
    m.provider = m.last_provider;
    m.failover = false;
  }
}
