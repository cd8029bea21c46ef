import type { Queryable } from '../../db/client.ts';
import { updateSavedReply as updateRow } from '../../db/queries/saved-replies.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentSavedReply, type SavedReply } from './present-saved-reply.ts';

/** Changes a saved reply's name or text (the other stays); CONV-005 when the account has none by that id. */
export async function updateSavedReply(
  db: Queryable,
  accountId: string,
  savedReplyId: string,
  input: { name?: string; text?: string },
  by: Actor,
): Promise<SavedReply> {
  const row = isId(savedReplyId)
    ? await updateRow(db, accountId, savedReplyId, { name: input.name?.trim(), text: input.text }, by)
    : undefined;
  return presentSavedReply(row ?? fail('CONV-005'));
}
