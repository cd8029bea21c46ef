import type { Queryable } from '../../db/client.ts';
import { deleteDrip as deleteRow } from '../../db/queries/drips.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/**
 * Deletes a drip campaign with its steps and executions (pending steps are never sent); 404
 * DRIP-001 when the account has none by that id. Messages it already queued stay.
 */
export async function deleteDrip(db: Queryable, accountId: string, dripId: string): Promise<void> {
  if (!isId(dripId) || !(await deleteRow(db, accountId, dripId))) fail('DRIP-001');
}
