import { type Db, withTx } from '../../db/client.ts';
import { markConversationClosed } from '../../db/queries/conversations.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvent } from '../events/emit.ts';
import { type Conversation, loadConversation } from './present-conversation.ts';

/**
 * Closes a conversation and emits `conversation-closed`, in one transaction. Closing a closed
 * conversation answers it unchanged and emits nothing. A new inbound message reopens it.
 */
export async function closeConversation(
  db: Db,
  accountId: string,
  conversationId: string,
  by: Actor,
): Promise<Conversation> {
  if (!isId(conversationId)) fail('CONV-002');
  return withTx(db, async (tx) => {
    const closed = await markConversationClosed(tx, accountId, conversationId, by);
    const conversation = (await loadConversation(tx, accountId, conversationId)) ?? fail('CONV-002');
    if (closed) await emitEvent(tx, accountId, 'conversation-closed', { conversation });
    return conversation;
  });
}
