import { type Db, withTx } from '../../db/client.ts';
import { replaceGroupUsers } from '../../db/queries/group-users.ts';
import {
  clearDefaultGroup,
  getGroup,
  lockAccountGroups,
  replaceGroupNumbers,
  updateGroup as saveGroup,
} from '../../db/queries/groups.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import {
  checkOfficeHours,
  type GroupInput,
  numberRefs,
  resolveGroupUsers,
  resolveNumberRefs,
} from './group-input.ts';
import { presentGroup } from './present.ts';

/**
 * Updates a group; absent fields stay. `phoneNumbers` replaces the group's numbers, `users` its users. isDefault true
 * moves the default here (the others lose it in the same transaction); the default group cannot
 * simply stop being the default (GRP-005).
 */
export async function updateGroup(db: Db, accountId: string, id: string, input: GroupInput, by: Actor) {
  if (!isId(id)) fail('GRP-001');
  checkOfficeHours(input.officeHours);
  return withTx(db, async (tx) => {
    await lockAccountGroups(tx, accountId);
    const current = await getGroup(tx, accountId, id);
    if (!current) fail('GRP-001');
    if (current.is_default && input.isDefault === false) fail('GRP-005');
    const refs = numberRefs(input);
    const numberIds = refs ? await resolveNumberRefs(tx, accountId, refs) : undefined;
    const users = input.users ? await resolveGroupUsers(tx, accountId, input.users) : undefined;
    if (input.isDefault && !current.is_default) await clearDefaultGroup(tx, accountId, id);
    const group = await saveGroup(tx, accountId, id, {
      name: input.name ?? current.name,
      isDefault: input.isDefault ?? current.is_default,
      useSharedPool: input.useSharedPool ?? current.use_shared_pool,
      notifications: input.notifications ?? current.notifications,
      tags: input.tags ?? current.tags,
      officeHours: input.officeHours === undefined ? current.office_hours : input.officeHours,
      dailyCap: input.dailyCap === undefined ? current.daily_cap : input.dailyCap,
      by,
    });
    if (!group) fail('GRP-001');
    if (numberIds) await replaceGroupNumbers(tx, accountId, id, numberIds);
    if (users) await replaceGroupUsers(tx, accountId, id, users);
    return presentGroup(tx, accountId, group);
  });
}
