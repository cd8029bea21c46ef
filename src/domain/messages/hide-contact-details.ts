import type { Message } from './present-message.ts';

/** A Message as shown to a token that may not read contacts. */
export type MessageWithoutContactDetails = Omit<Message, 'contact' | 'message'> & {
  contact?: { id: string };
  message?: string;
};

/**
 * A Message without what it tells about its contact, for a caller without `contacts:read`: the
 * contact keeps only its id (no name, e-mail or number), and the text is left out when merge
 * fields were rendered into it (it would carry the contact's fields). Ids, statuses, prices and
 * errors stay.
 */
export function hideContactDetails(m: Message): MessageWithoutContactDetails {
  const { contact, message, ...rest } = m;
  const rendered = m.template !== undefined && m.template !== message;
  return {
    ...rest,
    ...(contact ? { contact: { id: contact.id } } : {}),
    ...(rendered ? {} : { message }),
  };
}
