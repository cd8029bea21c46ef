import type { Queryable } from '../../db/client.ts';
import { withSavepoint } from '../../db/client.ts';
import type { ContactRow } from '../../db/queries/contacts.ts';
import type { FormRow } from '../../db/queries/forms.ts';
import { AppError, fail, recordedError } from '../../errors.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import type { Actor } from '../actor.ts';
import { renderForContact } from '../contacts/merge-values.ts';
import { takeAnonymousTextBudget } from '../messages/anonymous-text-budget.ts';
import { groupSenderPool, senderForContact } from '../numbers/group-sender-pool.ts';
import { queueMessage } from '../send/accept/queue-message.ts';

/** What became of a form's confirmation text: the queued message, or why there is none. */
export interface ConfirmationOutcome {
  messageId: string | null;
  error: { code: string; description: string } | null;
}

/**
 * Queues the form's confirmation text (merge fields rendered for the contact) from the account's
 * default group, in the caller's transaction. Nothing is sent to an opted-out (CONT-010) or a
 * blocked (CONT-011) contact. An expected failure (ACCT-002 balance, GRP-001/GRP-003 no sender, MSG-003 empty
 * text, FORM-005 the form's hourly cap of confirmation texts reached) is undone within a savepoint
 * and reported, so that the lead itself is never lost.
 */
export async function queueConfirmation(
  tx: Queryable,
  form: FormRow,
  contact: ContactRow,
  by: Actor,
  prices: PriceTable,
  perHour: number = Number.POSITIVE_INFINITY,
): Promise<ConfirmationOutcome> {
  const template = form.confirmation_message;
  if (!template?.trim()) return { messageId: null, error: null };
  if (contact.opted_out_at || contact.blocked_at) {
    const code = contact.blocked_at ? 'CONT-011' : 'CONT-010';
    return { messageId: null, error: recordedError(code) };
  }
  try {
    return await withSavepoint(tx, async () => {
      const pool = await groupSenderPool(tx, form.account_id);
      const sender = await senderForContact(tx, form.account_id, pool, contact);
      const body = renderForContact(template, contact);
      if (body.trim() === '') fail('MSG-003');
      const cap = { kind: 'form' as const, ownerId: form.id, perHour };
      if (Number.isFinite(perHour) && !(await takeAnonymousTextBudget(tx, form.account_id, cap, 1))) {
        fail(
          'FORM-005',
          `The form's cap of ${perHour} confirmation texts an hour is reached: no text was sent.`,
        );
      }
      const message = await queueMessage(
        tx,
        form.account_id,
        {
          contactId: contact.id,
          phoneNumberId: sender.id,
          from: sender.number,
          to: contact.mobile_number as string,
          body,
          template,
          prices,
        },
        by,
      );
      return { messageId: message.id, error: null };
    });
  } catch (err) {
    if (err instanceof AppError) return { messageId: null, error: recordedError(err.code, err.message) };
    throw err;
  }
}
