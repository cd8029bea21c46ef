import type { Queryable } from '../../db/client.ts';
import { deleteSavedReply as deleteRow } from '../../db/queries/saved-replies.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/** Deletes a saved reply; CONV-005 when the account has none by that id. */
export async function deleteSavedReply(
  db: Queryable,
  accountId: string,
  savedReplyId: string,
): Promise<void> {
  if (!isId(savedReplyId) || !(await deleteRow(db, accountId, savedReplyId))) fail('CONV-005');
}
