import type { Db } from '../../db/client.ts';
import { addListMembers, isSmartList } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { requireList } from './get-list.ts';

/** The answer to adding contacts to a list. */
export interface AddContactsResult {
  submitted: number;
  added: number;
  alreadyMember: number;
  notFound: number;
}

/**
 * Adds contacts to a static list in one statement. Ids naming no contact of the account (or not ids
 * at all) count as notFound. Memberships are opted in now, unless the list asks for double opt-in.
 */
export async function addListContacts(
  db: Db,
  accountId: string,
  listId: string,
  contactIds: string[],
): Promise<AddContactsResult> {
  const list = await requireList(db, accountId, listId);
  if (isSmartList(list)) fail('LIST-002');
  const ids = [...new Set(contactIds)];
  const wellFormed = ids.filter(isId).map((id) => id.toLowerCase());
  const r = await addListMembers(db, accountId, list.id, wellFormed, !list.double_opt_in?.enabled);
  return {
    submitted: contactIds.length,
    added: r.added,
    alreadyMember: r.alreadyMember,
    notFound: r.notFound + (ids.length - wellFormed.length),
  };
}
