import type { Db } from '../../db/client.ts';
import { markNewestInboundUnread } from '../../db/queries/conversations.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Conversation, loadConversation } from './present-conversation.ts';

/**
 * Marks a conversation unread: its newest text from the contact is unread again, so the
 * conversation counts as unread everywhere (the inbox's filter, the unread count) until it is read.
 * A conversation with no text from the contact is CONV-003.
 */
export async function unreadConversation(
  db: Db,
  accountId: string,
  conversationId: string,
): Promise<Conversation> {
  if (!isId(conversationId)) fail('CONV-002');
  const conversation = (await loadConversation(db, accountId, conversationId)) ?? fail('CONV-002');
  if (!(await markNewestInboundUnread(db, accountId, conversationId))) fail('CONV-003');
  return (await loadConversation(db, accountId, conversationId)) ?? conversation;
}
