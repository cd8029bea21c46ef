import type { Queryable } from '../../db/client.ts';
import { findList, type ListRow } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type List, presentLists } from './present-list.ts';

/** The account's list row; LIST-001 when there is none. */
export async function requireList(db: Queryable, accountId: string, listId: string): Promise<ListRow> {
  const row = isId(listId) ? await findList(db, accountId, listId) : undefined;
  return row ?? fail('LIST-001');
}

/** One list in the List shape. */
export async function getList(db: Queryable, accountId: string, listId: string): Promise<List> {
  return (await presentLists(db, accountId, [await requireList(db, accountId, listId)]))[0];
}
