import type { Queryable } from '../../../db/client.ts';
import { knownProviderRefs } from '../../../db/queries/dispatch-inflight.ts';
import type { OutboundMessage, Provider, SendResult } from '../../../providers/types.ts';

/**
 * An attempt of unknown fate (`uncertain`: no answer in time, the connection lost) at a provider
 * that can be asked (Twilio lists its Messages) is looked up there before it may be retried:
 * found → the provider's answer (sent with its id, or its rejection), never resent; not found →
 * the retry as before. A lookup that cannot be made now leaves the retry too (what the crash
 * reconciler would do at at-least-once). A carrier id already recorded for another message is not
 * this one's (the same text to the same person twice). Other results pass through unchanged.
 */
export async function settleUncertain(
  db: Queryable,
  provider: Provider,
  message: OutboundMessage,
  result: SendResult,
  since: Date,
): Promise<SendResult> {
  if (result.ok || !result.uncertain || !provider.lookup) return result;
  try {
    const found = await provider.lookup(message, since);
    const known = await knownProviderRefs(
      db,
      provider.name,
      found.map((f) => f.providerMessageId),
    );
    const match = found.find((f) => !known.has(f.providerMessageId));
    if (!match) return result;
    if (match.status === 'sent')
      return { ok: true, status: 'sent', providerMessageId: match.providerMessageId };
    return {
      ok: false,
      status: 'failed',
      error: match.error ?? result.error,
      retryable: false,
    };
  } catch {
    return result;
  }
}
