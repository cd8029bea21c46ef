import { type Db, withTx } from '../../db/client.ts';
import { removeNumberFromGroups } from '../../db/queries/groups.ts';
import { getPhoneNumber, hasPendingMessages, markReleased } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';

/**
 * Gives a number back: it leaves every group and becomes available to anyone again; the row stays
 * (status `released`) because messages and conversations refer to it. Refused (NUM-003) while
 * messages from it still wait to go out.
 */
export async function releasePhoneNumber(db: Db, accountId: string, id: string, by: Actor): Promise<void> {
  if (!isId(id)) fail('NUM-001');
  await withTx(db, async (tx) => {
    const current = await getPhoneNumber(tx, accountId, id);
    if (!current || current.status === 'released') fail('NUM-001');
    if (await hasPendingMessages(tx, accountId, id))
      fail('NUM-003', 'Messages from this number are still waiting to be sent.');
    if (!(await markReleased(tx, accountId, id, by))) fail('NUM-001');
    await removeNumberFromGroups(tx, accountId, id);
  });
}
