import type { Queryable } from '../../db/client.ts';
import { deleteAutoresponder as deleteRow } from '../../db/queries/autoresponders.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/** Deletes an autoresponder (and its reply marks); 404 AUTO-001 when the account has none by that id. */
export async function deleteAutoresponder(db: Queryable, accountId: string, id: string): Promise<void> {
  if (!isId(id) || !(await deleteRow(db, accountId, id))) fail('AUTO-001');
}
