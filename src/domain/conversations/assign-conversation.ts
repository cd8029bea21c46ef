import { type Db, withTx } from '../../db/client.ts';
import { setConversationAssignee } from '../../db/queries/conversations.ts';
import { lockMember } from '../../db/queries/users.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type Conversation, loadConversation } from './present-conversation.ts';

/**
 * Assigns a conversation to a person of the account, or unassigns it (`userId` null); answers the
 * conversation. A person who is not a member of the account (another account's, or none) is
 * CONV-004. The membership is locked until the change commits, so a person leaving meanwhile
 * cannot keep the assignment (their leaving clears it: migration 0380).
 */
export async function assignConversation(
  db: Db,
  accountId: string,
  conversationId: string,
  userId: string | null,
  by: Actor,
): Promise<Conversation> {
  if (!isId(conversationId)) fail('CONV-002');
  return withTx(db, async (tx) => {
    if (userId !== null && !(isId(userId) && (await lockMember(tx, accountId, userId)))) fail('CONV-004');
    if (!(await setConversationAssignee(tx, accountId, conversationId, userId, by))) fail('CONV-002');
    return (await loadConversation(tx, accountId, conversationId)) ?? fail('CONV-002');
  });
}
