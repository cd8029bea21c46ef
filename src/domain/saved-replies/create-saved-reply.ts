import { type Db, withTx } from '../../db/client.ts';
import { countSavedRepliesLocked, insertSavedReply } from '../../db/queries/saved-replies.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { MAX_SAVED_REPLIES, presentSavedReply, type SavedReply } from './present-saved-reply.ts';

/** Saves a reply for the account's inbox; CONV-006 when it already keeps MAX_SAVED_REPLIES. */
export async function createSavedReply(
  db: Db,
  accountId: string,
  input: { name: string; text: string },
  by: Actor,
): Promise<SavedReply> {
  return withTx(db, async (tx) => {
    if ((await countSavedRepliesLocked(tx, accountId)) >= MAX_SAVED_REPLIES) fail('CONV-006');
    const row = await insertSavedReply(tx, accountId, {
      id: newId(),
      name: input.name.trim(),
      text: input.text,
      by,
    });
    return presentSavedReply(row);
  });
}
