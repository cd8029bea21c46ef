import type { Db } from '../../db/client.ts';
import { deleteSmppCredential } from '../../db/queries/smpp.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/**
 * Deletes an SMPP credential: no new bind succeeds with it, and SMPP servers close its open binds
 * within their next check (SMPP_SERVER_POLL_MS). SMPP-001 when there is none by that id.
 */
export async function deleteCredential(db: Db, accountId: string, id: string): Promise<void> {
  if (!isId(id) || !(await deleteSmppCredential(db, accountId, id))) fail('SMPP-001');
}
