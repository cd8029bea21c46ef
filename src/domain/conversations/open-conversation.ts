import type { Queryable } from '../../db/client.ts';
import {
  type ConversationRow,
  insertConversation,
  lockConversationByPair,
  reopenConversation,
} from '../../db/queries/conversations.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvent } from '../events/emit.ts';
import { loadConversation } from './present-conversation.ts';

/**
 * The open conversation between a contact and one of our numbers, created when the pair has none
 * and reopened when it was closed. Either of those emits `conversation-started` in the caller's
 * transaction (a closed conversation that comes back to life starts again for whoever watches the
 * inbox; the payload says which). The row stays locked until the transaction ends, so concurrent
 * messages of one pair thread into one conversation in order.
 */
export async function openConversation(
  tx: Queryable,
  accountId: string,
  pair: { contactId: string; phoneNumberId: string },
  by: Actor,
): Promise<{ conversation: ConversationRow; started: boolean; reopened: boolean }> {
  let row = await lockConversationByPair(tx, accountId, pair.contactId, pair.phoneNumberId);
  let started = false;
  let reopened = false;
  if (!row) {
    row = await insertConversation(tx, accountId, { id: newId(), ...pair, by });
    // ON CONFLICT waited for a concurrent insert of the same pair to commit: take that one.
    if (row) started = true;
    else row = await lockConversationByPair(tx, accountId, pair.contactId, pair.phoneNumberId);
    if (!row) throw new Error('conversation vanished during find-or-create');
  }
  if (row.closed_at) {
    row = await reopenConversation(tx, accountId, row.id, by);
    started = true;
    reopened = true;
  }
  if (started) {
    const conversation = await loadConversation(tx, accountId, row.id);
    await emitEvent(tx, accountId, 'conversation-started', { conversation, reopened });
  }
  return { conversation: row, started, reopened };
}
