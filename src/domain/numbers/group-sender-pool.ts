import type { Queryable } from '../../db/client.ts';
import { pickContactSender } from '../../db/queries/conversations.ts';
import { activeGroupNumbers, type GroupRow, getDefaultGroup, getGroup } from '../../db/queries/groups.ts';
import { activeAccountNumbers } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { suitableSenders } from '../../messaging/senders.ts';
import { isId } from '../../util/ids.ts';

/** A number a send can go out from, with its rate limit. */
export interface PoolSender {
  id: string;
  number: string;
  provider: string;
  throughputMps: number;
  /** The number's country, and the destination countries it can send to (routing: a suitable sender). */
  country: string;
  destinations: string[];
}

/** A group and the numbers it sends from. */
export interface SenderPool {
  group: {
    id: string;
    name: string;
    isDefault: boolean;
    useSharedPool: boolean;
    officeHours: GroupRow['office_hours'];
  };
  numbers: PoolSender[];
}

/**
 * The senders of a group (the account's default group when no id is given): its active numbers,
 * or every active number of the account when the group uses the shared pool, leaving out numbers
 * their provider has not verified. Unknown group → GRP-001; numbers, but none verified → NUM-010.
 * An empty `numbers` is for the caller to judge (GRP-003 when it must send).
 */
export async function groupSenderPool(
  db: Queryable,
  accountId: string,
  groupId?: string,
): Promise<SenderPool> {
  let group: GroupRow | undefined;
  if (groupId === undefined) group = await getDefaultGroup(db, accountId);
  else if (isId(groupId)) group = await getGroup(db, accountId, groupId);
  if (!group) fail('GRP-001');
  const held = group.use_shared_pool
    ? await activeAccountNumbers(db, accountId)
    : await activeGroupNumbers(db, accountId, group.id);
  const rows = held.filter((r) => r.verified);
  if (held.length > 0 && rows.length === 0) {
    fail('NUM-010', `No number of group "${group.name}" is verified with its provider, so none can send.`);
  }
  return {
    group: {
      id: group.id,
      name: group.name,
      isDefault: group.is_default,
      useSharedPool: group.use_shared_pool,
      officeHours: group.office_hours,
    },
    numbers: rows.map((r) => ({
      id: r.id,
      number: r.number,
      provider: r.provider,
      throughputMps: r.throughput_mps,
      country: r.country,
      destinations: r.supported_destinations ?? [],
    })),
  };
}

/** A pool's numbers in a stable order (by id): every choice of sender indexes into this order. */
export function sendersInOrder(pool: SenderPool): PoolSender[] {
  return [...pool.numbers].sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * The number of a pool that texts one contact: the one rule of every send (sticky conversation,
 * else a number suitable for the contact's country, else the pool, by a stable hash of the
 * contact's id; see pickContactSender). GRP-003 when the pool has no number.
 */
export async function senderForContact(
  db: Queryable,
  accountId: string,
  pool: SenderPool,
  contact: { id: string; mobile_country: string | null },
): Promise<PoolSender> {
  const numbers = sendersInOrder(pool);
  if (numbers.length === 0) fail('GRP-003');
  if (numbers.length === 1) return numbers[0];
  const id = await pickContactSender(
    db,
    accountId,
    { id: contact.id, country: contact.mobile_country },
    numbers.map((n) => n.id),
    suitableSenders(numbers),
  );
  return numbers.find((n) => n.id === id) ?? numbers[0];
}
