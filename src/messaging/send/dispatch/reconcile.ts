import type { AppContext } from '../../../context.ts';
import { preferIndexLookups, withTx } from '../../../db/client.ts';
import {
  anyExpiredInflight,
  dropInflight,
  lockExpiredInflight,
  type UncertainMessage,
  uncertainMessages,
} from '../../../db/queries/dispatch-inflight.ts';
import { recordSubmissions, type SubmissionOutcome } from '../../../db/queries/message-dispatch.ts';
import { ERRORS } from '../../../errors.ts';
import type { LookupMatch, ProviderName } from '../../../providers/types.ts';
import { type AskableProvider, lookUpAndTake } from './settle-uncertain.ts';
import { outbound } from './submit.ts';

/** Lookups in flight at once while reconciling one group. */
const LOOKUP_CONCURRENCY = 8;
/** Groups reconciled per dispatch round at most (the rest at the next round). */
const GROUPS_PER_ROUND = 20;

const UNKNOWN_FATE = { code: 'MSG-020', description: ERRORS['MSG-020'].message };

/**
 * Settles the groups a dead worker left marked in flight (dispatch_inflight rows whose lease
 * passed), before anything may send their messages again. Each message still unrecorded is
 * looked up at its provider where the provider can be asked: found → recorded as sent with the
 * provider's id (or failed, if the provider rejected it), never resent; not found → left for the
 * normal resend. Where the provider cannot be asked, DELIVERY_GUARANTEE decides: at-least-once
 * leaves it to be resent, at-most-once fails it with MSG-020 and refunds it. A lookup that cannot
 * be made now (the provider is unreachable) leaves the group for a later round. Answers how many
 * groups were settled.
 */
export async function reconcileInflight(
  ctx: AppContext,
  log: (msg: string) => void = ctx.log,
): Promise<number> {
  if (!(await anyExpiredInflight(ctx.db))) return 0;
  let settled = 0;
  for (; settled < GROUPS_PER_ROUND; settled++) {
    const more = await withTx(ctx.db, async (tx) => {
      await preferIndexLookups(tx);
      const group = await lockExpiredInflight(tx, ctx.providers.names());
      if (!group) return false;
      const messages = await uncertainMessages(tx, group.id);
      const provider = ctx.providers.get(group.provider as ProviderName);
      const outcomes: SubmissionOutcome[] = [];
      const outcome = (
        m: UncertainMessage,
        kind: 'sent' | 'failed',
        pmid: string | null,
        error: SubmissionOutcome['error'],
      ): SubmissionOutcome => ({
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
        refLookup: !provider?.receiptsNameMessage,
        handed: true,
        owed: null,
      });
      if (provider?.lookup) {
        const askable = provider as AskableProvider;
        const found = new Array<LookupMatch[]>(messages.length);
        let next = 0;
        await Promise.all(
          Array.from({ length: Math.min(LOOKUP_CONCURRENCY, messages.length) }, async () => {
            while (next < messages.length) {
              const k = next++;
              found[k] = await askable.lookup(
                outbound({ ...messages[k], attempts: messages[k].attempt }),
                group.started_at,
              );
            }
          }),
        );
        // A carrier id already recorded for another message, or taken here by an earlier one, is
        // not this message's (the same text to the same person twice): each is taken in this
        // transaction, so another worker settling an identical message waits and finds it taken.
        for (let k = 0; k < messages.length; k++) {
          const message = outbound({ ...messages[k], attempts: messages[k].attempt });
          const match = await lookUpAndTake(tx, askable, message, group.started_at, found[k]);
          if (!match) continue;
          outcomes.push(
            outcome(
              messages[k],
              match.status,
              match.status === 'sent' ? match.providerMessageId : null,
              match.error ?? null,
            ),
          );
        }
        log(
          `dispatch: reconciled ${messages.length} uncertain message(s) with ${group.provider}: ${outcomes.length} found`,
        );
      } else if (ctx.config.deliveryGuarantee === 'at-most-once') {
        for (const m of messages) outcomes.push(outcome(m, 'failed', null, UNKNOWN_FATE));
        if (messages.length > 0) {
          log(
            `dispatch: ${messages.length} message(s) of unknown fate at ${group.provider} failed (at-most-once)`,
          );
        }
      }
      await recordSubmissions(tx, outcomes);
      await dropInflight(tx, [group.id]);
      return true;
    });
    if (!more) break;
  }
  return settled;
}
