import type { Db } from '../../db/client.ts';
import { markInboundRead } from '../../db/queries/conversations.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Conversation, loadConversation } from './present-conversation.ts';

/** Marks every inbound message of a conversation read; answers the conversation (unread now empty). */
export async function readConversation(
  db: Db,
  accountId: string,
  conversationId: string,
): Promise<Conversation> {
  if (!isId(conversationId)) fail('CONV-002');
  await markInboundRead(db, accountId, conversationId);
  return (await loadConversation(db, accountId, conversationId)) ?? fail('CONV-002');
}
