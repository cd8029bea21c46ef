import { Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { AuditStamp, IdParam, NamedPageQuery, PageQuery } from './common.ts';
import { ContactMobile } from './contacts.ts';
import { Message } from './messages.ts';

/** The contact a conversation is with: the Contact shape's identifying fields. */
export const ConversationContact = Type.Object({
  id: Type.String(),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  mobile: Type.Optional(ContactMobile),
  optOut: Type.Optional(
    Type.String({ description: 'When the contact opted out (ISO 8601); left out while they have not.' }),
  ),
  blocked: Type.Optional(
    Type.String({ description: 'When the contact was blocked (ISO 8601); left out while they are not.' }),
  ),
});

/** The person of the account a conversation is assigned to. */
export const ConversationAssignee = Type.Object({
  id: Type.String({ description: 'The user id (as in `…/users`).' }),
  email: Type.String(),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
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
  assignee: Type.Optional(ConversationAssignee),
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
  assignee: Type.Optional(
    Type.String({
      pattern: '^(me|none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
      description:
        '`me`: assigned to the person the token is for (a console user; an API client has none), `none`: ' +
        'unassigned, or a user id: assigned to that person.',
    }),
  ),
});

export const AssignConversationBody = Type.Object(
  {
    userId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'A person of the account (`…/users`), or null to unassign.',
    }),
  },
  { additionalProperties: false },
);

/** A saved reply: a named text the inbox inserts into a reply (merge fields as in any message). */
export const SavedReply = Type.Object({
  id: Type.String(),
  name: Type.String(),
  text: Type.String(),
  created: AuditStamp,
  updated: AuditStamp,
});

const replyName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const replyText = Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, pattern: '\\S' });

export const CreateSavedReplyBody = Type.Object(
  { name: replyName, text: replyText },
  { additionalProperties: false },
);

export const UpdateSavedReplyBody = Type.Object(
  { name: Type.Optional(replyName), text: Type.Optional(replyText) },
  { additionalProperties: false, minProperties: 1 },
);

export const SavedReplyListQuery = NamedPageQuery;

export const SavedReplyParams = IdParam('accountId', 'savedReplyId');
