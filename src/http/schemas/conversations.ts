import { Type } from '@sinclair/typebox';
import { AuditStamp, PageQuery } from './common.ts';
import { Message } from './messages.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** The contact a conversation is with: the Contact shape's identifying fields. */
export const ConversationContact = Type.Object({
  id: Type.String(),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  email: Nullable(Type.String()),
  mobile: Nullable(
    Type.Object({
      country: Nullable(Type.String()),
      number: Type.String(),
      verified: Nullable(Type.String({ format: 'date-time' })),
      valid: Type.Boolean(),
      lineType: Nullable(Type.String()),
    }),
  ),
});

/** A conversation: the thread of messages between one contact and one of our numbers. */
export const Conversation = Type.Object({
  id: Type.String(),
  contact: ConversationContact,
  phoneNumber: Nullable(Type.String({ description: 'Our number in the conversation (E.164).' })),
  lastMessage: Nullable(Message),
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
});
