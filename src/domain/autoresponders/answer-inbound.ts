import { type Queryable, withSavepoint } from '../../db/client.ts';
import {
  type CandidateRow,
  candidateAutoresponders,
  recordTrigger,
  takeReplyMark,
} from '../../db/queries/autoresponders.ts';
import type { ContactRow } from '../../db/queries/contacts.ts';
import { lockContact } from '../../db/queries/inbound.ts';
import type { PhoneNumberRow } from '../../db/queries/phone-numbers.ts';
import { AppError } from '../../errors.ts';
import { keywordMatcher, wordsOf } from '../../messaging/keywords.ts';
import { type StoredOfficeHours, withinOfficeHours } from '../../messaging/office-hours.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import type { Actor } from '../actor.ts';
import { renderForContact } from '../contacts/merge-values.ts';
import { queueMessage } from '../send/accept/queue-message.ts';

/** Words that, anywhere in a text, read as a request to stop: such a text is never auto-answered. */
const STOP_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE'];

/** Who sends an autoresponder's reply (the `created.by` of the message). */
const AUTORESPONDER = (id: string): Actor => ({ id, name: 'Autoresponder', source: 'autoresponder' });

/** What an autoresponder did with an inbound text. */
export interface Autoresponse {
  autoresponderId: string;
  /** The reply queued; absent when the answer was suppressed (`reason`). */
  messageId?: string;
  reason?: 'window' | 'not-sent';
}

/** The autoresponder that answers a text: the first match in precedence order (see candidateAutoresponders). */
export function pickAutoresponder(
  candidates: CandidateRow[],
  text: string,
  at: Date,
): CandidateRow | undefined {
  const matches = keywordMatcher(text);
  return candidates.find((c) => {
    if (c.trigger_type === 'keywords') return matches(c.keyword_keys);
    return withinOfficeHours(c.office_hours as StoredOfficeHours | null, at.getTime()) === false;
  });
}

/**
 * Answers an inbound text with at most one autoresponder, inside the inbound message's transaction
 * (the reply exists exactly when the message does). The caller has already ruled out compliance
 * keywords (they always win). Nothing is answered to a contact who is opted out or blocked (read
 * under the contact's lock, so a STOP committing now wins), nor to a text that says STOP,
 * STOPALL or UNSUBSCRIBE anywhere.
 *
 * The winner (pickAutoresponder) answers unless it answered this contact within `windowMinutes`
 * (its reply mark; defeats loops with other bots): then the text counts as a suppressed trigger and
 * no other autoresponder answers either. The reply is an ordinary outbound message through
 * queueMessage from the number the text came to, threaded into its conversation: merge fields
 * rendered for the contact, priced and charged, events as any send. A reply that cannot be queued
 * (ACCT-002: the balance cannot cover it) is undone under a savepoint and counted as suppressed:
 * the inbound message is stored regardless.
 */
export async function answerInbound(
  tx: Queryable,
  accountId: string,
  input: { contact: ContactRow; number: PhoneNumberRow; conversationId: string; text: string; at: Date },
  windowMinutes: number,
  prices: PriceTable,
): Promise<Autoresponse | undefined> {
  const words = new Set(wordsOf(input.text));
  if (STOP_WORDS.some((w) => words.has(w))) return undefined;
  const candidates = await candidateAutoresponders(tx, accountId, input.number.id);
  if (candidates.length === 0) return undefined;
  const winner = pickAutoresponder(candidates, input.text, input.at);
  if (!winner) return undefined;
  const contact = await lockContact(tx, accountId, input.contact.id);
  if (!contact || contact.opted_out_at || contact.blocked_at || !contact.mobile_number) return undefined;

  let outcome: Autoresponse;
  try {
    outcome = await withSavepoint(tx, async () => {
      if (!(await takeReplyMark(tx, accountId, winner.id, contact.id, windowMinutes))) {
        return { autoresponderId: winner.id, reason: 'window' as const };
      }
      const body = renderForContact(winner.message, contact);
      const row = await queueMessage(
        tx,
        accountId,
        {
          contactId: contact.id,
          conversationId: input.conversationId,
          phoneNumberId: input.number.id,
          from: input.number.number,
          to: contact.mobile_number as string,
          body,
          template: winner.message,
          media: winner.media.map((m) => ({ url: m.url })),
          prices,
        },
        AUTORESPONDER(winner.id),
      );
      return row.status === 'failed'
        ? { autoresponderId: winner.id, messageId: row.id, reason: 'not-sent' as const }
        : { autoresponderId: winner.id, messageId: row.id };
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    outcome = { autoresponderId: winner.id, reason: 'not-sent' };
  }
  await recordTrigger(tx, accountId, winner.id, outcome.reason === undefined);
  return outcome;
}
