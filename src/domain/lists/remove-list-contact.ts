import type { Db } from '../../db/client.ts';
import { isSmartList, removeListMember } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { requireList } from './get-list.ts';

/** Removes a contact from a static list; CONT-002 when the contact is not a member. */
export async function removeListContact(
  db: Db,
  accountId: string,
  listId: string,
  contactId: string,
): Promise<void> {
  const list = await requireList(db, accountId, listId);
  if (isSmartList(list)) fail('LIST-002');
  if (!isId(contactId) || !(await removeListMember(db, accountId, list.id, contactId)))
    fail('CONT-002', 'The contact is not a member of this list.');
}
