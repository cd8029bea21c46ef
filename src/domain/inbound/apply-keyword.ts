import type { Queryable } from '../../db/client.ts';
import { findAccount } from '../../db/queries/accounts.ts';
import { type ContactRow, listMemberships } from '../../db/queries/contacts.ts';
import {
  confirmPendingMemberships,
  lockContact,
  optInContact,
  optOutContact,
} from '../../db/queries/inbound.ts';
import type { PhoneNumberRow } from '../../db/queries/phone-numbers.ts';
import type { KeywordAction } from '../../messaging/keywords.ts';
import { keywordReplyText } from '../accounts/keyword-replies.ts';
import type { Actor } from '../actor.ts';
import { presentContact } from '../contacts/present-contact.ts';
import { emitEvent } from '../events/emit.ts';
import { queueMessage } from '../send/accept/queue-message.ts';

/** What a keyword did: whether it changed anything, and the auto-reply it queued, if any. */
export interface KeywordOutcome {
  applied: boolean;
  replyMessageId?: string;
}

/**
 * Carries out a compliance keyword an inbound message consists of, in the inbound message's
 * transaction (so the opt-out, its event and its confirmation exist exactly when the message does):
 *
 * - opt-out: the contact is opted out (optIn cleared, every list membership opted out), event
 *   `contact-opt-out`, one confirmation. Already opted out: nothing changes and nothing is sent,
 *   so a repeated STOP never earns a second confirmation.
 * - opt-in: an opted-out contact is opted back in (list memberships' opt-out cleared), event
 *   `contact-opt-in`, confirmation. A contact who is not opted out is left alone: YES is also
 *   the everyday answer to "reply YES to confirm", and must not draw a resubscribe notice. Either
 *   way it confirms the contact's pending (double opt-in) list memberships: that is how a double
 *   opt-in is recorded, and what starts the drips and workflows of those lists.
 * - help: the account's help text, but never to an opted-out or blocked contact.
 *
 * Each reply is the account's own text for it, or the default wording (accounts/keyword-replies.ts).
 *
 * Replies are system messages: they go even to an opted-out contact and are not charged; queueMessage
 * threads them into the conversation and makes them its last message.
 */
export async function applyKeyword(
  tx: Queryable,
  accountId: string,
  input: {
    action: KeywordAction;
    keyword: string;
    contact: ContactRow;
    number: PhoneNumberRow;
    conversationId: string;
    messageId: string;
  },
  by: Actor,
): Promise<KeywordOutcome> {
  const { action, contact, number } = input;
  // The list memberships as they were: those the keyword opts in or out are announced one by one.
  const before = action === 'help' ? [] : await listMemberships(tx, accountId, [contact.id]);
  let changed: ContactRow | undefined;
  if (action === 'opt-out') {
    changed = await optOutContact(tx, accountId, contact.id, by);
  } else if (action === 'opt-in') {
    changed = await optInContact(tx, accountId, contact.id, by);
    await confirmPendingMemberships(tx, accountId, contact.id);
  } else {
    // Read under lock: a STOP from the same contact committing right now must win over HELP.
    const current = await lockContact(tx, accountId, contact.id);
    if (!current || current.opted_out_at || current.blocked_at) return { applied: false };
  }
  if (action !== 'help') {
    await emitListOptEvents(tx, accountId, before, input);
    if (!changed) return { applied: false };
    const lists = await listMemberships(tx, accountId, [changed.id]);
    await emitEvent(tx, accountId, action === 'opt-out' ? 'contact-opt-out' : 'contact-opt-in', {
      contact: presentContact(changed, lists),
      keyword: input.keyword,
      source: 'keyword',
      messageId: input.messageId,
      conversationId: input.conversationId,
    });
  }
  const body = keywordReplyText(await findAccount(tx, accountId), action, contact);
  const reply = await queueMessage(
    tx,
    accountId,
    {
      contactId: contact.id,
      conversationId: input.conversationId,
      phoneNumberId: number.id,
      from: number.number,
      to: contact.mobile_number as string,
      body,
      system: true,
    },
    by,
  );
  return { applied: true, replyMessageId: reply.id };
}

/**
 * `list-opt-out` for each list membership the keyword opted out, `list-opt-in` for each it opted
 * (back) in: data `{list: {id, name}, contact: Contact, optIn, optOut, source: "keyword", keyword,
 * messageId, conversationId}`, `optIn` / `optOut` the membership's timestamps as they now are.
 */
async function emitListOptEvents(
  tx: Queryable,
  accountId: string,
  before: Awaited<ReturnType<typeof listMemberships>>,
  input: { keyword: string; contact: ContactRow; messageId: string; conversationId: string },
): Promise<void> {
  if (before.length === 0) return;
  const after = await listMemberships(tx, accountId, [input.contact.id]);
  const was = new Map(before.map((m) => [m.id, m]));
  const at = (d: Date | null) => (d ? new Date(d).toISOString() : undefined);
  let contact: ReturnType<typeof presentContact> | undefined;
  for (const m of after) {
    const old = was.get(m.id);
    if (!old) continue;
    const optedOut = !old.opt_out_at && m.opt_out_at;
    const optedIn = (old.opt_out_at && !m.opt_out_at) || (!old.opt_in_at && m.opt_in_at && !m.opt_out_at);
    if (!optedOut && !optedIn) continue;
    if (!contact) {
      const row = (await lockContact(tx, accountId, input.contact.id)) ?? input.contact;
      contact = presentContact(row, after);
    }
    await emitEvent(tx, accountId, optedOut ? 'list-opt-out' : 'list-opt-in', {
      list: { id: m.id, name: m.name },
      contact,
      optIn: at(m.opt_in_at),
      optOut: at(m.opt_out_at),
      source: 'keyword',
      keyword: input.keyword,
      messageId: input.messageId,
      conversationId: input.conversationId,
    });
  }
}
