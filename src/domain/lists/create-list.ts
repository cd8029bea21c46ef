import type { Db } from '../../db/client.ts';
import { insertList } from '../../db/queries/lists.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type ListInput, toListFields } from './list-input.ts';
import { type List, presentLists } from './present-list.ts';

/** Creates a list: static (members added by id) or smart (with a filter). */
export async function createList(
  db: Db,
  accountId: string,
  input: ListInput & { name: string },
  by: Actor,
): Promise<List> {
  const fields = await toListFields(db, accountId, input);
  const row = await insertList(db, accountId, { id: newId(), fields, by });
  return (await presentLists(db, accountId, [row]))[0];
}
