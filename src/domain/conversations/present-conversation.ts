import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import type { ContactRow } from '../../db/queries/contacts.ts';
import {
  type ConversationView,
  contactsByIds,
  findConversationView,
} from '../../db/queries/conversations.ts';
import { type MessageView, messageViewsByIds } from '../../db/queries/messages.ts';
import type {
  ConversationPhoneNumber,
  Conversation as ConversationSchema,
} from '../../schemas/conversations.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';
import { presentContact } from '../contacts/present-contact.ts';
import { presentMessage } from '../messages/present-message.ts';

/** The Message shape (a conversation's lastMessage). */
type Message = ReturnType<typeof presentMessage>;

/** The Conversation shape of the API; unset fields are left out (the published description marks nothing nullable). */
export type Conversation = Static<typeof ConversationSchema>;

function presentConversation(
  v: ConversationView,
  contact: ContactRow | undefined,
  last: MessageView | undefined,
): Conversation {
  const c = contact ? presentContact(contact) : undefined;
  return omitNullsAs<Conversation>({
    id: v.id,
    contact: c
      ? omitNulls({
          id: c.id,
          firstName: c.firstName,
          lastName: c.lastName,
          email: c.email,
          mobile: c.mobile,
          optOut: c.optOut,
          blocked: c.blocked,
        })
      : { id: v.contact_id },
    phoneNumber: v.phone_number_ref as Static<typeof ConversationPhoneNumber> | null,
    lastMessage: last ? presentMessage(last) : null,
    unread: v.unread_ids,
    closed: v.closed_at !== null,
    assignee: v.assignee
      ? omitNulls({
          id: v.assignee.id,
          email: v.assignee.email,
          firstName: v.assignee.first_name || null,
          lastName: v.assignee.last_name || null,
        })
      : null,
    created: stamp(v.created_at, v.created_by),
    updated: stamp(v.updated_at, v.updated_by),
  });
}

/** Presents conversation rows with their contacts and last messages (two queries for the whole page). */
export async function presentConversations(
  db: Queryable,
  accountId: string,
  views: ConversationView[],
): Promise<Conversation[]> {
  const [contacts, messages] = await Promise.all([
    contactsByIds(db, accountId, [...new Set(views.map((v) => v.contact_id))]),
    messageViewsByIds(
      db,
      accountId,
      views.map((v) => v.last_message_id).filter((id): id is string => id !== null),
    ),
  ]);
  const contactById = new Map(contacts.map((c) => [c.id, c]));
  const messageById = new Map(messages.map((m) => [m.id, m]));
  return views.map((v) =>
    presentConversation(
      v,
      contactById.get(v.contact_id),
      v.last_message_id ? messageById.get(v.last_message_id) : undefined,
    ),
  );
}

/** One conversation in its API shape, or undefined when the account has no such conversation. */
export async function loadConversation(
  db: Queryable,
  accountId: string,
  conversationId: string,
): Promise<Conversation | undefined> {
  const view = await findConversationView(db, accountId, conversationId);
  return view ? (await presentConversations(db, accountId, [view]))[0] : undefined;
}

/** One message in the Message shape (for event payloads written in the same transaction). */
export async function loadMessage(
  db: Queryable,
  accountId: string,
  messageId: string,
): Promise<Message | undefined> {
  const [view] = await messageViewsByIds(db, accountId, [messageId]);
  return view ? presentMessage(view) : undefined;
}
