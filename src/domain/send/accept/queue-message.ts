import type { Queryable } from '../../../db/client.ts';
import { adjustBalance, sendingSettings } from '../../../db/queries/accounts.ts';
import { setLastMessage } from '../../../db/queries/conversations.ts';
import { emitMessageEvents, insertOutboundMessage, type MessageRow } from '../../../db/queries/messages.ts';
import { fail } from '../../../errors.ts';
import type { PriceTable } from '../../../messaging/pricing.ts';
import { countSegments, encodeText } from '../../../messaging/segments.ts';
import { textError } from '../../../messaging/text-rules.ts';
import { newId } from '../../../util/ids.ts';
import type { Actor } from '../../actor.ts';
import { openConversation } from '../../conversations/open-conversation.ts';

/**
 * One outbound message to queue (a reply, an auto-reply, a one-off send), with the price table it
 * is priced by (the service's, PRICE_TABLE); a compliance reply (`system`) is free and needs none.
 */
export type QueueMessageInput = QueueMessageFields &
  (
    | /** Compliance auto-replies (STOP/START/HELP confirmations): sent even to opted-out contacts, not charged. */
    { system: true; prices?: undefined }
    | { system?: false; prices: PriceTable }
  );

/** A system message is not charged: it is priced by no table. */
const FREE: PriceTable = { default: 0 };

interface QueueMessageFields {
  contactId: string;
  /** The conversation to thread into; when absent, the (contact, number) conversation is opened. */
  conversationId?: string;
  phoneNumberId: string;
  /** Our number, E.164. */
  from: string;
  /** The contact's number, E.164. */
  to: string;
  body: string;
  /** The source text when `body` was rendered from a template. */
  template?: string;
  media?: { url: string }[];
  /**
   * A marketing text (workflow and drip messages, or a send that asks for it): held until quiet
   * hours (21:00–8:00) end in the recipient's time zone, the account's where the number does not
   * tell — the rule campaigns use (sparrow_quiet_until, migration 0152). Queued and charged now.
   */
  quietHours?: boolean;
}

/**
 * Queues one outbound message for the dispatcher, inside the caller's transaction, with its
 * encoding, segments and price (segments × the contact's country rate in `input.prices`, the
 * service's price table; 0 for `system`).
 *
 * - The price is charged from the account balance here; when the balance cannot cover it this
 *   throws ACCT-002 (402) and the caller's transaction must roll back.
 * - A contact that opted out or is blocked gets a `failed` message with error CONT-010, uncharged
 *   and never dispatched (unless `system`); a `message-status` event announces it. So does a text
 *   that is empty without media (MSG-004) or longer than MAX_TEXT_LENGTH (MSG-005), text-rules.ts.
 * - A queued message emits no event yet: the dispatcher emits `message-sent` when the provider
 *   accepts it and `message-status` on every later change (delivered, undelivered, failed).
 * - Opening a new conversation emits `conversation-started` (see openConversation).
 *
 * Unknown contact → CONT-002.
 */
export async function queueMessage(
  tx: Queryable,
  accountId: string,
  input: QueueMessageInput,
  by: Actor,
): Promise<MessageRow> {
  const system = input.system ?? false;
  const conversationId =
    input.conversationId ??
    (
      await openConversation(
        tx,
        accountId,
        { contactId: input.contactId, phoneNumberId: input.phoneNumberId },
        by,
      )
    ).conversation.id;
  // The account's sending settings (docs/encoding.md): the text is smart-encoded unless it turned
  // that off; the default validity period applies to everything but compliance replies.
  const settings = await sendingSettings(tx, accountId);
  const body = encodeText(input.body, settings?.smart_encoding ?? true);
  const { encoding, segments } = countSegments(body);
  const row = await insertOutboundMessage(tx, accountId, {
    id: newId(),
    contactId: input.contactId,
    conversationId,
    phoneNumberId: input.phoneNumberId,
    from: input.from,
    to: input.to,
    body,
    template: input.template ?? null,
    media: input.media ?? [],
    encoding,
    segments,
    system,
    prices: input.prices ?? FREE,
    by,
    // One rule for every send: an empty (media-less) or over-long text is failed, not sent or charged.
    textError: system ? null : textError(body, (input.media?.length ?? 0) > 0),
    quietHours: !system && input.quietHours === true,
    validity: system ? undefined : (settings?.validity_period ?? undefined),
  });
  if (!row) fail('CONT-002');
  if (row.price > 0) {
    const balance = await adjustBalance(tx, accountId, -row.price);
    if (balance === undefined || balance < 0) fail('ACCT-002');
  }
  await setLastMessage(tx, accountId, conversationId, row.id);
  if (row.status === 'failed') await emitMessageEvents(tx, accountId, 'message-status', [row.id]);
  return row;
}
