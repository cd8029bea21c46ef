import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import { type GroupUserRow, usersOfGroups } from '../../db/queries/group-users.ts';
import { type GroupRow, groupsOfNumbers, numbersOfGroups } from '../../db/queries/groups.ts';
import type { PhoneNumberRow } from '../../db/queries/phone-numbers.ts';
import type { Group, Notification, OfficeHours, User } from '../../schemas/groups.ts';
import type { Channels, PhoneNumber } from '../../schemas/numbers.ts';
import { omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** `{id, name}` of a group, as a number lists its groups. */
export interface GroupRef {
  id: string;
  name: string;
}

/** The Phone number shape of the API (an unset `name` or `forwardTo` left out, never null). */
export function presentPhoneNumber(n: PhoneNumberRow, groups: GroupRef[]) {
  return omitNullsAs<Static<typeof PhoneNumber>>({
    id: n.id,
    status: n.status,
    number: n.number,
    country: n.country,
    type: n.type,
    name: n.name,
    provider: n.provider,
    verified: n.verified,
    universalReply: n.universal_reply,
    hosted: n.hosted,
    supportedDestinations: n.supported_destinations,
    forwardTo: n.forward_to,
    channels: n.channels as Static<typeof Channels>,
    groups,
    throughput: n.throughput_mps,
    dailyCap: n.daily_cap,
    created: stamp(n.created_at, n.created_by),
    updated: stamp(n.updated_at, n.updated_by),
  });
}

/** A phone number as the API shows it. */
export type PhoneNumberView = ReturnType<typeof presentPhoneNumber>;

/** The groups each number belongs to, keyed by number id. */
export async function groupRefsByNumber(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<Map<string, GroupRef[]>> {
  const out = new Map<string, GroupRef[]>(ids.map((id) => [id, []]));
  for (const r of await groupsOfNumbers(db, accountId, ids))
    out.get(r.phone_number_id)?.push({ id: r.id, name: r.name });
  return out;
}

/** Phone numbers with their groups loaded. */
export async function presentPhoneNumbers(db: Queryable, accountId: string, rows: PhoneNumberRow[]) {
  const groups = await groupRefsByNumber(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => presentPhoneNumber(r, groups.get(r.id) ?? []));
}

/** A console user linked to a group, in the interface's User shape (unset fields left out). */
function presentGroupUser(u: GroupUserRow) {
  return omitNullsAs<Static<typeof User>>({
    id: u.user_id,
    email: u.email,
    firstName: u.first_name,
    lastName: u.last_name,
    role: u.role,
    mobile: u.mobile as Static<typeof User>['mobile'] | null,
    tacAccepted: u.tac_accepted_at?.toISOString() ?? null,
  });
}

function presentGroupRow(g: GroupRow, numbers: PhoneNumberView[], users: GroupUserRow[]) {
  return omitNullsAs<Static<typeof Group>>({
    id: g.id,
    name: g.name,
    phoneNumbers: numbers,
    notifications: g.notifications as Static<typeof Notification>[],
    tags: g.tags,
    users: users.map(presentGroupUser),
    // One Sender per number: the sending identities the group owns.
    senders: numbers.map((n) => ({
      id: n.id,
      type: 'phonenumber',
      subType: n.type,
      status: n.status,
      identifier: n.number,
      created: n.created,
      updated: n.updated,
      channels: n.channels,
      groups: n.groups,
    })),
    officeHours: g.office_hours as Static<typeof OfficeHours> | null,
    isDefault: g.is_default,
    useSharedPool: g.use_shared_pool,
    dailyCap: g.daily_cap,
    created: stamp(g.created_at, g.created_by),
    updated: stamp(g.updated_at, g.updated_by),
  });
}

/**
 * The Group shape of the API, for each given group row (numbers, senders and their groups, and its
 * console users as they are now, with their role in the account, loaded).
 */
export async function presentGroups(db: Queryable, accountId: string, groups: GroupRow[]) {
  const members = await numbersOfGroups(
    db,
    accountId,
    groups.map((g) => g.id),
  );
  const refs = await groupRefsByNumber(db, accountId, [...new Set(members.map((m) => m.id))]);
  const users = await usersOfGroups(
    db,
    accountId,
    groups.map((g) => g.id),
  );
  return groups.map((g) =>
    presentGroupRow(
      g,
      members.filter((m) => m.group_id === g.id).map((m) => presentPhoneNumber(m, refs.get(m.id) ?? [])),
      users.filter((u) => u.group_id === g.id),
    ),
  );
}

/** A group as the API shows it. */
export type GroupView = ReturnType<typeof presentGroupRow>;

export async function presentGroup(db: Queryable, accountId: string, group: GroupRow) {
  return (await presentGroups(db, accountId, [group]))[0];
}
