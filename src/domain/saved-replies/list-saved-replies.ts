import type { Queryable } from '../../db/client.ts';
import { findSavedReply, listSavedReplies as queryReplies } from '../../db/queries/saved-replies.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Page } from '../page.ts';
import { presentSavedReply, type SavedReply } from './present-saved-reply.ts';

/** A page of the account's saved replies by name (optionally by partial, case-insensitive name). */
export async function listSavedReplies(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<Page<SavedReply>> {
  const { rows, total } = await queryReplies(db, accountId, filter, page);
  return { items: rows.map(presentSavedReply), totalCount: total, ...page };
}

/** One saved reply of the account; CONV-005 when there is none by that id. */
export async function getSavedReply(
  db: Queryable,
  accountId: string,
  savedReplyId: string,
): Promise<SavedReply> {
  const row = isId(savedReplyId) ? await findSavedReply(db, accountId, savedReplyId) : undefined;
  return presentSavedReply(row ?? fail('CONV-005'));
}
