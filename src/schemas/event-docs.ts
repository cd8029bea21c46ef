import type { EventType } from './enums.ts';
import { INBOUND_EVENT_DOCS } from './event-docs-inbound.ts';
import { MESSAGE_EVENT_DOCS } from './event-docs-messages.ts';

/** What an event means and what its `data` carries. */
export interface EventDoc {
  summary: string;
  data: string;
}

const CONTACT_EVENT_DOCS = {
  'contact-created': {
    summary:
      'A contact was created (through the API, a CSV upload, a send to a new mobile, or an inbound text).',
    data: 'The Contact, as `GET …/contacts/{contactId}` answers it.',
  },
  'contact-updated': {
    summary: 'A contact was changed (through the API or a merging CSV upload).',
    data: 'The Contact after the change.',
  },
  'contact-removed': {
    summary: 'A contact was deleted.',
    data: 'The Contact as it was, plus `removed: {at, by}`.',
  },
} as const satisfies Partial<Record<EventType, EventDoc>>;

/**
 * The one description of every event type's payload, gathered from the areas that emit them: used for
 * the OpenAPI `webhooks` section and the README.
 */
export const EVENT_DOCS: Record<EventType, EventDoc> = {
  ...CONTACT_EVENT_DOCS,
  'message-sent': MESSAGE_EVENT_DOCS['message-sent'],
  'message-status': MESSAGE_EVENT_DOCS['message-status'],
  'message-received': INBOUND_EVENT_DOCS['message-received'],
  'conversation-started': {
    summary: INBOUND_EVENT_DOCS['conversation-started'].summary,
    data:
      `${INBOUND_EVENT_DOCS['conversation-started'].data} When a bulk send opens it, the conversation carries ` +
      '`{id, contact: {id}, phoneNumber, closed}` (written set-based with the messages).',
  },
  'conversation-closed': INBOUND_EVENT_DOCS['conversation-closed'],
  'contact-opt-out': INBOUND_EVENT_DOCS['contact-opt-out'],
  'contact-opt-in': INBOUND_EVENT_DOCS['contact-opt-in'],
  'list-opt-out': {
    summary:
      "A contact's membership of one list was opted out (an opt-out keyword opts out every membership).",
    data:
      '`{list: {id, name}, contact: Contact, optIn, optOut, source: "keyword", keyword, messageId, conversationId}`, ' +
      'one event per membership that changed, written with the `contact-opt-out` it comes with.',
  },
  'list-opt-in': {
    summary:
      "A contact's membership of one list was opted in: a pending double opt-in confirmed, or an opt-out undone by START.",
    data: "Same shape as `list-opt-out`, `optOut` left out, `optIn` the membership's opt-in time when it has one.",
  },
};
