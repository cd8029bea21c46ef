import { type Db, withTx } from '../../db/client.ts';
import { deleteNonDefaultGroup, getGroup, lockAccountGroups } from '../../db/queries/groups.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/** Deletes a group (its numbers stay with the account); the default group cannot go (GRP-002). */
export async function deleteGroup(db: Db, accountId: string, id: string): Promise<void> {
  if (!isId(id)) fail('GRP-001');
  await withTx(db, async (tx) => {
    await lockAccountGroups(tx, accountId);
    const current = await getGroup(tx, accountId, id);
    if (!current) fail('GRP-001');
    if (current.is_default) fail('GRP-002');
    await deleteNonDefaultGroup(tx, accountId, id);
  });
}
