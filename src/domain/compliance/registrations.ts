import type { Db } from '../../db/client.ts';
import {
  deleteRegistration as deleteRow,
  findRegistration,
  foreignNumberIds,
  groupExists,
  insertRegistration,
  listRegistrations as listRows,
  type RegistrationFields,
  type RegistrationRow,
  registrationKind,
  updateRegistration as updateRow,
} from '../../db/queries/compliance.ts';
import { fail } from '../../errors.ts';
import type { RegistrationKind, RegistrationStatus } from '../../schemas/compliance.ts';
import { isId, newId } from '../../util/ids.ts';
import { type Actor, stamp } from '../actor.ts';
import type { Page } from '../page.ts';

/** A registration as the API shows it. */
export function presentRegistration(r: RegistrationRow) {
  return {
    id: r.id,
    kind: r.kind as RegistrationKind,
    name: r.name,
    ...(r.external_id ? { externalId: r.external_id } : {}),
    ...(r.parent_id ? { parentId: r.parent_id } : {}),
    status: r.status as RegistrationStatus,
    ...(r.use_case ? { useCase: r.use_case } : {}),
    phoneNumbers: r.phone_numbers,
    ...(r.group_ref ? { group: r.group_ref } : {}),
    ...(r.messages_per_second !== null ? { messagesPerSecond: r.messages_per_second } : {}),
    ...(r.daily_cap !== null ? { dailyCap: r.daily_cap } : {}),
    ...(r.notes ? { notes: r.notes } : {}),
    created: stamp(r.created_at, r.created_by as Actor),
    updated: stamp(r.updated_at, r.updated_by as Actor),
  };
}

const notFound = () => fail('NUM-012');

/**
 * Checks what a registration names: its numbers and group are the account's (NUM-001, GRP-001), a
 * 10DLC campaign's parent is one of the account's 10DLC brands (VAL-001), ids well formed.
 */
async function check(db: Db, accountId: string, f: RegistrationFields, kind: string | undefined) {
  const ids = f.phoneNumberIds ?? [];
  const bad = ids.find((id) => !isId(id));
  if (bad !== undefined) fail('NUM-001', `Phone number ${JSON.stringify(bad)} not found.`);
  if (ids.length) {
    const foreign = await foreignNumberIds(db, accountId, [...new Set(ids)]);
    if (foreign.length) fail('NUM-001', `Phone number ${foreign[0]} not found.`);
    f.phoneNumberIds = [...new Set(ids)];
  }
  if (f.groupId) {
    if (!isId(f.groupId) || !(await groupExists(db, accountId, f.groupId))) fail('GRP-001');
  }
  if (f.parentId) {
    if (kind !== '10dlc-campaign')
      fail('VAL-001', '`parentId` is for a 10DLC campaign: the brand it is registered under.');
    const parent = isId(f.parentId) ? await registrationKind(db, accountId, f.parentId) : undefined;
    if (parent !== '10dlc-brand') fail('VAL-001', '`parentId` must be one of the account’s 10DLC brands.');
  }
  if (f.name !== undefined) {
    f.name = f.name.trim();
    if (!f.name) fail('VAL-001', '`name` must not be blank.');
  }
}

export async function createRegistration(db: Db, accountId: string, f: RegistrationFields, by: Actor) {
  await check(db, accountId, f, f.kind);
  const id = newId();
  await insertRegistration(db, accountId, id, f, by);
  return presentRegistration((await findRegistration(db, accountId, id)) ?? notFound());
}

export async function getRegistration(db: Db, accountId: string, id: string) {
  if (!isId(id)) notFound();
  return presentRegistration((await findRegistration(db, accountId, id)) ?? notFound());
}

export async function updateRegistration(
  db: Db,
  accountId: string,
  id: string,
  f: RegistrationFields,
  by: Actor,
) {
  if (!isId(id)) notFound();
  const kind = (await registrationKind(db, accountId, id)) ?? notFound();
  if (f.parentId === id) fail('VAL-001', 'A registration cannot be its own parent.');
  await check(db, accountId, f, kind);
  if (!(await updateRow(db, accountId, id, f, by))) notFound();
  return presentRegistration((await findRegistration(db, accountId, id)) ?? notFound());
}

export async function deleteRegistration(db: Db, accountId: string, id: string) {
  if (!isId(id) || !(await deleteRow(db, accountId, id))) notFound();
}

export async function listRegistrations(
  db: Db,
  accountId: string,
  kind: string | undefined,
  page: { offset: number; limit: number },
): Promise<Page<ReturnType<typeof presentRegistration>>> {
  const { rows, total } = await listRows(db, accountId, kind, page);
  return { items: rows.map(presentRegistration), totalCount: total, ...page };
}
