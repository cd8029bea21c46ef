import type pg from 'pg';
import type { AppContext } from '../../../context.ts';
import { preferIndexLookups, withTx } from '../../../db/client.ts';
import {
  anyExpiredInflight,
  deferInflight,
  type ExpiredInflight,
  lockExpiredInflight,
  type UncertainMessage,
  uncertainMessages,
} from '../../../db/queries/dispatch-inflight.ts';
import { recordSubmissions, type SubmissionOutcome } from '../../../db/queries/message-dispatch.ts';
import type { LookupMatch, ProviderName } from '../../../providers/types.ts';
import {
  type AskableProvider,
  LOOKUP_BACKOFF,
  lookUpAndTake,
  lookupDelaySeconds,
  lookupsExhausted,
  UNKNOWN_FATE,
} from './settle-uncertain.ts';
import { outbound } from './submit.ts';

/** Lookups in flight at once while reconciling one group. */
const LOOKUP_CONCURRENCY = 8;
/** Groups reconciled per dispatch round at most (the rest at the next round). */
const GROUPS_PER_ROUND = 20;

/**
 * Settles the groups a dead worker left marked in flight (dispatch_inflight rows whose lease
 * passed), before anything may send their messages again. Each message still unrecorded is
 * looked up at its provider where the provider can be asked: found → recorded as sent with the
 * provider's id (or failed, if the provider rejected it), never resent; not found → left for the
 * normal resend. Where the provider cannot be asked, DELIVERY_GUARANTEE decides: at-least-once
 * leaves it to be resent, at-most-once fails it with MSG-020 and refunds it.
 *
 * A lookup that cannot be made (the provider unreachable, an error, no answer) holds back neither
 * the round nor the other groups, nor the messages of its group that were settled: the group keeps
 * only the messages whose lookup failed and is taken again, by any worker, only once the backoff
 * of a live attempt's lookups (LOOKUP_BACKOFF, for its failed rounds) has passed. After
 * LOOKUP_BACKOFF's bound DELIVERY_GUARANTEE decides for those messages, as settleOwed does for a
 * live attempt. Answers how many groups were taken (settled or deferred).
 */
export async function reconcileInflight(
  ctx: AppContext,
  log: (msg: string) => void = ctx.log,
): Promise<number> {
  if (!(await anyExpiredInflight(ctx.db))) return 0;
  let taken = 0;
  for (; taken < GROUPS_PER_ROUND; taken++) {
    const more = await withTx(ctx.db, (tx) => reconcileGroup(ctx, tx, log));
    if (!more) break;
  }
  return taken;
}

/**
 * Reconciles one expired group, in the transaction that locks it (FOR UPDATE SKIP LOCKED: no other
 * worker takes it meanwhile). The lookups are made while it is locked, and what they found is
 * taken and recorded in the same transaction that drops or defers the group: a found message is
 * never lost to a failed lookup of another, nor recorded twice. Answers false when no group is due.
 */
async function reconcileGroup(
  ctx: AppContext,
  tx: pg.PoolClient,
  log: (msg: string) => void,
): Promise<boolean> {
  await preferIndexLookups(tx);
  const group = await lockExpiredInflight(tx, ctx.providers.names());
  if (!group) return false;
  const messages = await uncertainMessages(tx, group.id);
  const provider = ctx.providers.get(group.provider as ProviderName);
  const refLookup = !provider?.receiptsNameMessage;
  const outcomes: SubmissionOutcome[] = [];
  if (!provider?.lookup) {
    outcomes.push(...unknownFate(ctx, group, messages, refLookup));
    if (outcomes.length > 0)
      log(
        `dispatch: ${outcomes.length} message(s) of unknown fate at ${group.provider} failed (at-most-once)`,
      );
  } else {
    const { found, unknown, error } = await lookUpGroup(tx, provider as AskableProvider, group, messages);
    outcomes.push(...found);
    const line = `dispatch: reconciled ${messages.length} uncertain message(s) with ${group.provider}: ${outcomes.length} found`;
    if (!error) {
      log(line);
    } else {
      const failures = group.lookup_failures + 1;
      const failed = `${line}, ${unknown.length} lookup(s) failed (${error.message}), ${failures} time(s)`;
      if (!lookupsExhausted(failures)) {
        const delay = lookupDelaySeconds(failures);
        log(`${failed}: asked again in ${delay} s (at most ${LOOKUP_BACKOFF.maxAttempts} times)`);
        await recordSubmissions(tx, outcomes);
        await deferInflight(
          tx,
          group.id,
          unknown.map((m) => ({ accountId: m.account_id, id: m.id, attempt: m.attempt })),
          failures,
          delay,
        );
        return true;
      }
      log(
        `${failed}: ${ctx.config.deliveryGuarantee === 'at-most-once' ? 'failed (at-most-once)' : 'sent again (at-least-once)'}`,
      );
      outcomes.push(...unknownFate(ctx, group, unknown, refLookup));
    }
  }
  await recordSubmissions(tx, outcomes, [group.id]);
  return true;
}

/**
 * Looks up each message of the group and takes what is found. Answers the outcomes of those found,
 * the messages whose lookup could not be made, and the first such lookup's error.
 */
async function lookUpGroup(
  tx: pg.PoolClient,
  provider: AskableProvider,
  group: ExpiredInflight,
  messages: UncertainMessage[],
): Promise<{ found: SubmissionOutcome[]; unknown: UncertainMessage[]; error?: Error }> {
  const answers = await lookUpAll(provider, messages, group.started_at);
  const found: SubmissionOutcome[] = [];
  const unknown: UncertainMessage[] = [];
  let error: Error | undefined;
  // A carrier id already recorded for another message, or taken here by an earlier one, is
  // not this message's (the same text to the same person twice): each is taken in this
  // transaction, so another worker settling an identical message waits and finds it taken.
  for (let k = 0; k < messages.length; k++) {
    const answer = answers[k];
    if (answer instanceof Error) {
      unknown.push(messages[k]);
      error ??= answer;
      continue;
    }
    const message = outbound({ ...messages[k], attempts: messages[k].attempt });
    const match = await lookUpAndTake(tx, provider, message, group.started_at, answer);
    if (!match) continue;
    const pmid = match.status === 'sent' ? match.providerMessageId : null;
    found.push(
      outcomeOf(group, messages[k], match.status, pmid, match.error ?? null, !provider.receiptsNameMessage),
    );
  }
  return { found, unknown, error };
}

/** Each message's lookup, at most LOOKUP_CONCURRENCY at once; one that could not be made: its error. */
async function lookUpAll(
  provider: AskableProvider,
  messages: UncertainMessage[],
  since: Date,
): Promise<(LookupMatch[] | Error)[]> {
  const found = new Array<LookupMatch[] | Error>(messages.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(LOOKUP_CONCURRENCY, messages.length) }, async () => {
      while (next < messages.length) {
        const k = next++;
        try {
          found[k] = await provider.lookup(
            outbound({ ...messages[k], attempts: messages[k].attempt }),
            since,
          );
        } catch (err) {
          found[k] = err instanceof Error ? err : new Error(String(err));
        }
      }
    }),
  );
  return found;
}

/**
 * The outcomes of messages whose fate at the provider cannot be learnt: DELIVERY_GUARANTEE decides.
 * At-least-once records nothing (dropping the group leaves them to the normal resend); at-most-once
 * fails them with MSG-020 (refunded).
 */
function unknownFate(
  ctx: AppContext,
  group: ExpiredInflight,
  messages: UncertainMessage[],
  refLookup: boolean,
): SubmissionOutcome[] {
  if (ctx.config.deliveryGuarantee !== 'at-most-once') return [];
  return messages.map((m) => outcomeOf(group, m, 'failed', null, UNKNOWN_FATE, refLookup));
}

/** The outcome to record for a message of a reconciled group (its attempt was handed over). */
function outcomeOf(
  group: ExpiredInflight,
  m: UncertainMessage,
  kind: 'sent' | 'failed',
  pmid: string | null,
  error: SubmissionOutcome['error'],
  refLookup: boolean,
): SubmissionOutcome {
  return {
    accountId: m.account_id,
    id: m.id,
    attempt: m.attempt,
    outcome: kind,
    provider: group.provider,
    providerMessageId: pmid,
    error,
    retryAfterSeconds: 0,
    price: m.price,
    ranged: group.ranged,
    submittedSecond: null,
    refLookup,
    handed: true,
    owed: null,
  };
}
