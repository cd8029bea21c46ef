import type { Queryable } from '../../db/client.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Conversation, loadConversation } from './present-conversation.ts';

/** One conversation of the account; an unknown, foreign or malformed id is CONV-002. */
export async function getConversation(
  db: Queryable,
  accountId: string,
  conversationId: string,
): Promise<Conversation> {
  if (!isId(conversationId)) fail('CONV-002');
  return (await loadConversation(db, accountId, conversationId)) ?? fail('CONV-002');
}
