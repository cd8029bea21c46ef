import type { EventType } from './enums.ts';

/**
 * Payloads (`data`) of the events the inbound path, conversations and opt-out keywords emit, for
 * the webhook documentation. Shapes named here are the API's (Message, Contact, Conversation).
 */
export const INBOUND_EVENT_DOCS = {
  'message-received': {
    summary: 'A text arrived on one of the account’s numbers.',
    data:
      '`{message: "<the text>", messageObject: Message, contact: Contact, conversation: {id, phoneNumber, started}}` ' +
      '(the published payload: `message` the text, the whole Message in `messageObject`; `conversation.phoneNumber`: ' +
      'the phone-number object `{id, number, country, …, active}`). `messageObject.outgoing` is ' +
      'false, `messageObject.status` is `received`, `messageObject.read` false. `conversation.started` is true when this ' +
      'message opened (or reopened) the conversation. Emitted once per carrier message id: a carrier retry of the ' +
      'same message emits nothing. A keyword text (STOP, START, HELP…) is a received message too, emitted before ' +
      'the opt-out/opt-in event it causes.',
  },
  'conversation-started': {
    summary:
      'A conversation opened: the first message between a contact and one of our numbers, or a new message in a closed one.',
    data:
      '`{conversation: Conversation, reopened: boolean}`. `reopened` is true when a closed conversation came back ' +
      'to life (it keeps its id and history). `conversation.lastMessage` is the one before the message that opened ' +
      'it (left out for a new conversation).',
  },
  'conversation-closed': {
    summary: 'A conversation was closed through the API.',
    data: '`{conversation: Conversation}` with `closed: true`. Closing a closed conversation emits nothing.',
  },
  'contact-opt-out': {
    summary: 'A contact texted an opt-out keyword (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT).',
    data:
      '`{contact: Contact, keyword, source: "keyword", messageId, conversationId}`: `contact.optOut` is set, ' +
      '`contact.optIn` left out, every `contact.lists[].optOut` set. `keyword` is the word as sent, upper case; ' +
      '`messageId` the inbound message. A repeated STOP from an opted-out contact emits nothing. A bulk ' +
      '`optOut` (POST …/bulk/contacts) emits `{contact, source: "bulk", jobId}` the same way.',
  },
  'contact-opt-in': {
    summary: 'An opted-out contact texted an opt-in keyword (START, YES, UNSTOP).',
    data:
      '`{contact: Contact, keyword, source: "keyword", messageId, conversationId}`: `contact.optOut` left out, ' +
      '`contact.optIn` now, `contact.lists[].optOut` cleared. Emitted only for a contact that was opted out. ' +
      'A bulk `optIn` (POST …/bulk/contacts) emits `{contact, source: "bulk", jobId}`.',
  },
} as const satisfies Partial<Record<EventType, { summary: string; data: string }>>;
