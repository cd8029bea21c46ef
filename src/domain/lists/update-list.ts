import type { Db } from '../../db/client.ts';
import { updateList as updateListRow } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { requireList } from './get-list.ts';
import { type ListInput, toListFields } from './list-input.ts';
import { type List, presentLists } from './present-list.ts';

/** Updates the given fields of a list. Setting `filter` to null makes a smart list static (and empty). */
export async function updateList(
  db: Db,
  accountId: string,
  listId: string,
  input: ListInput,
  by: Actor,
): Promise<List> {
  await requireList(db, accountId, listId);
  const fields = await toListFields(db, accountId, input, listId);
  const row = (await updateListRow(db, accountId, listId, fields, by)) ?? fail('LIST-001');
  return (await presentLists(db, accountId, [row]))[0];
}
