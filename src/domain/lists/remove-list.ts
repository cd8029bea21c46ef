import type { Db } from '../../db/client.ts';
import { deleteList } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/** Deletes a list and its memberships (the contacts stay). */
export async function removeList(db: Db, accountId: string, listId: string): Promise<void> {
  if (!isId(listId) || !(await deleteList(db, accountId, listId))) fail('LIST-001');
}
