import type { Queryable } from '../../db/client.ts';
import { getGroup as findGroup } from '../../db/queries/groups.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { presentGroup } from './present.ts';

/** One group of the account with its numbers and senders, or GRP-001. */
export async function getGroup(db: Queryable, accountId: string, id: string) {
  const group = isId(id) ? await findGroup(db, accountId, id) : undefined;
  if (!group) fail('GRP-001');
  return presentGroup(db, accountId, group);
}
