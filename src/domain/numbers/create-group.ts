import { type Db, withTx } from '../../db/client.ts';
import { replaceGroupUsers } from '../../db/queries/group-users.ts';
import {
  clearDefaultGroup,
  insertGroup,
  lockAccountGroups,
  replaceGroupNumbers,
} from '../../db/queries/groups.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import {
  checkOfficeHours,
  type GroupInput,
  numberRefs,
  resolveGroupUsers,
  resolveNumberRefs,
} from './group-input.ts';
import { presentGroup } from './present.ts';

/** Creates a phone-number group; with isDefault it becomes the account's one default group. */
export async function createGroup(
  db: Db,
  accountId: string,
  input: GroupInput & { name: string },
  by: Actor,
) {
  checkOfficeHours(input.officeHours);
  return withTx(db, async (tx) => {
    await lockAccountGroups(tx, accountId);
    const refs = numberRefs(input);
    const numberIds = refs ? await resolveNumberRefs(tx, accountId, refs) : [];
    const users = await resolveGroupUsers(tx, accountId, input.users ?? []);
    const id = newId();
    if (input.isDefault) await clearDefaultGroup(tx, accountId, id);
    const group = await insertGroup(tx, accountId, {
      id,
      name: input.name,
      isDefault: input.isDefault ?? false,
      useSharedPool: input.useSharedPool ?? false,
      notifications: input.notifications ?? [],
      tags: input.tags ?? [],
      officeHours: input.officeHours ?? null,
      dailyCap: input.dailyCap ?? null,
      by,
    });
    if (numberIds.length > 0) await replaceGroupNumbers(tx, accountId, group.id, numberIds);
    if (users.length > 0) await replaceGroupUsers(tx, accountId, group.id, users);
    return presentGroup(tx, accountId, group);
  });
}
