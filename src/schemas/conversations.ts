import { Type } from '@sinclair/typebox';
import { AuditStamp, PageQuery } from './common.ts';
import { ContactMobile } from './contacts.ts';
import { Message } from './messages.ts';

/** The contact a conversation is with: the Contact shape's identifying fields. */
export const ConversationContact = Type.Object({
  id: Type.String(),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  mobile: Type.Optional(ContactMobile),
});

/** Our number in a conversation: the published phone-number object (unset fields left out). */
export const ConversationPhoneNumber = Type.Object({
  id: Type.String(),
  number: Type.String({ description: 'E.164.' }),
  country: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  active: Type.Boolean({ description: 'Whether the number is active (not released).' }),
});

/** A conversation: the thread of messages between one contact and one of our numbers. */
export const Conversation = Type.Object({
  id: Type.String(),
  contact: ConversationContact,
  phoneNumber: Type.Optional(ConversationPhoneNumber),
  lastMessage: Type.Optional(Message),
  unread: Type.Array(Type.String(), { description: 'Ids of inbound messages not yet read, oldest first.' }),
  closed: Type.Boolean(),
  created: AuditStamp,
  updated: AuditStamp,
});

export const ConversationListQuery = Type.Object({
  ...PageQuery,
  contactId: Type.Optional(
    Type.String({ format: 'uuid', description: 'Only conversations with this contact.' }),
  ),
  closed: Type.Optional(Type.Boolean({ description: 'true: closed ones only; false: open ones only.' })),
  unread: Type.Optional(Type.Boolean({ description: 'true: with unread inbound messages; false: without.' })),
  replied: Type.Optional(
    Type.Boolean({
      description:
        'true: with at least one inbound message; false: outbound only (threads a bulk send opened).',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Part of the contact's name, mobile number or e-mail.",
    }),
  ),
});
