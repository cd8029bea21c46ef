import type { AppContext } from '../../context.ts';
import { withTx } from '../../db/client.ts';
import { setLastMessage } from '../../db/queries/conversations.ts';
import {
  findActiveNumberByE164,
  findInboundByProviderId,
  insertInboundMessage,
  lockInboundProviderId,
} from '../../db/queries/inbound.ts';
import { phoneNumberRef } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { classifyKeyword, type KeywordAction, keywordOf } from '../../messaging/keywords.ts';
import { parseMobile } from '../../messaging/phone.ts';
import { countSegments } from '../../messaging/segments.ts';
import type { InboundMessage } from '../../providers/types.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type Autoresponse, answerInbound } from '../autoresponders/answer-inbound.ts';
import { findOrCreateContactByMobile } from '../contacts/find-or-create-by-mobile.ts';
import { presentContact } from '../contacts/present-contact.ts';
import { openConversation } from '../conversations/open-conversation.ts';
import { loadMessage } from '../conversations/present-conversation.ts';
import { emitEvent } from '../events/emit.ts';
import { applyKeyword } from './apply-keyword.ts';

/** What became of an inbound message. */
export interface ReceivedMessage {
  messageId: string;
  conversationId: string;
  contactId: string;
  accountId: string;
  /** The compliance keyword the text consists of, if any (whether or not it changed anything). */
  keyword?: KeywordAction;
  /** The auto-reply queued for a keyword, if any. */
  replyMessageId?: string;
  /** What an autoresponder did with the text, if one matched (docs/autoresponders.md). */
  autoresponse?: Autoresponse;
  /** True when this provider message id was already stored (a carrier retry): nothing was done. */
  duplicate: boolean;
}

/**
 * Takes in a message a carrier delivered to one of our numbers (any provider): routes it by our
 * number to its account (unknown or inactive number, or one another provider serves → PROV-002;
 * unparseable sender → CONT-001),
 * and in ONE transaction finds or creates the sender's contact, opens the conversation of (contact,
 * our number), stores the message (unread, status `received`), emits `message-received`, and
 * carries out a compliance keyword (see applyKeyword) or else lets an autoresponder answer (see
 * answerInbound). A provider message id seen before is a
 * carrier retry: it answers the first copy and changes nothing.
 */
export async function receiveMessage(ctx: AppContext, msg: InboundMessage): Promise<ReceivedMessage> {
  const to = normaliseOurNumber(msg.to);
  const found = await findActiveNumberByE164(ctx.db, to);
  // A provider speaks only for the numbers it serves: a simulated text to a Twilio or SMPP number
  // is refused like an unknown number (nothing stored, no keyword acted on).
  const number = found?.provider === msg.provider ? found : fail('PROV-002');
  const sender =
    parseMobile(msg.from, number.country) ?? fail('CONT-001', `Invalid sender number "${msg.from}".`);
  const accountId = number.account_id;
  const by: Actor = { id: 'inbound', name: 'Inbound message', source: 'inbound', subSource: msg.provider };

  return withTx(ctx.db, async (tx) => {
    await lockInboundProviderId(tx, accountId, msg.provider, msg.providerMessageId);
    const seen = await findInboundByProviderId(tx, accountId, msg.provider, msg.providerMessageId);
    if (seen) {
      return {
        messageId: seen.id,
        conversationId: seen.conversation_id as string,
        contactId: seen.contact_id as string,
        accountId,
        keyword: classifyKeyword(msg.text),
        duplicate: true,
      };
    }

    const { contact } = await findOrCreateContactByMobile(
      tx,
      accountId,
      { number: sender.number, country: sender.country, lineType: sender.lineType },
      by,
    );
    const { conversation, started } = await openConversation(
      tx,
      accountId,
      { contactId: contact.id, phoneNumberId: number.id },
      by,
    );
    const { encoding, segments } = countSegments(msg.text);
    const messageId = await insertInboundMessage(tx, accountId, {
      id: newId(),
      contactId: contact.id,
      conversationId: conversation.id,
      phoneNumberId: number.id,
      from: sender.number,
      to: number.number,
      body: msg.text,
      media: msg.media,
      encoding,
      segments,
      provider: msg.provider,
      providerMessageId: msg.providerMessageId,
      receivedAt: msg.at,
      by,
    });
    await setLastMessage(tx, accountId, conversation.id, messageId);
    await emitEvent(tx, accountId, 'message-received', {
      message: await loadMessage(tx, accountId, messageId),
      contact: presentContact(contact),
      conversation: {
        id: conversation.id,
        phoneNumber: await phoneNumberRef(tx, accountId, number.id),
        started,
      },
    });

    const keyword = classifyKeyword(msg.text);
    let replyMessageId: string | undefined;
    if (keyword) {
      const outcome = await applyKeyword(
        tx,
        accountId,
        {
          action: keyword,
          keyword: keywordOf(msg.text) as string,
          contact,
          number,
          conversationId: conversation.id,
          messageId,
        },
        by,
      );
      replyMessageId = outcome.replyMessageId;
    }
    // A compliance keyword always wins: a text that is one is never auto-answered.
    const autoresponse = keyword
      ? undefined
      : await answerInbound(
          tx,
          accountId,
          { contact, number, conversationId: conversation.id, text: msg.text, at: msg.at },
          ctx.config.autoresponderWindowMinutes,
          ctx.config.priceTable,
        );
    return {
      messageId,
      conversationId: conversation.id,
      contactId: contact.id,
      accountId,
      keyword,
      replyMessageId,
      autoresponse,
      duplicate: false,
    };
  });
}

/** Carriers do not all write our number in E.164 (SMPP often omits the +): normalise it first. */
function normaliseOurNumber(raw: string): string {
  const text = raw.trim();
  const international = /^\d{8,15}$/.test(text) ? `+${text}` : text;
  return parseMobile(international)?.number ?? international;
}
