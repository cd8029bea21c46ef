import { type Queryable, withSavepoint } from '../../db/client.ts';
import { addNumberToGroup, insertGroup } from '../../db/queries/groups.ts';
import { insertPhoneNumber, takenNumbers } from '../../db/queries/phone-numbers.ts';
import { defaultThroughput } from '../../messaging/throughput.ts';
import { SIMULATOR_INVENTORY } from '../../providers/simulator/inventory.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { channelsFor } from './channels.ts';

/**
 * Gives a new account its default group holding one simulator number (the first free US local
 * number of the simulator's inventory). Runs inside the account's creation transaction.
 */
export async function provisionDefaultGroup(tx: Queryable, accountId: string, by: Actor) {
  const candidates = SIMULATOR_INVENTORY.filter((n) => n.country === 'US' && n.type === 'local');
  const taken = await takenNumbers(
    tx,
    candidates.map((c) => c.number),
  );
  const pick = candidates.find((c) => !taken.has(c.number));
  if (!pick) throw new Error('the simulator inventory has no free US number left');
  let number: Awaited<ReturnType<typeof insertPhoneNumber>>;
  try {
    number = await withSavepoint(tx, () =>
      insertPhoneNumber(tx, accountId, {
        id: newId(),
        number: pick.number,
        country: pick.country,
        type: pick.type,
        provider: 'simulator',
        throughputMps: defaultThroughput(pick.type),
        channels: channelsFor(pick.features),
        supportedDestinations: [pick.country],
        by,
      }),
    );
  } catch (err) {
    // Another account took the same number at the same moment: try the next one.
    if ((err as { code?: string }).code !== '23505') throw err;
    return provisionDefaultGroup(tx, accountId, by);
  }
  const group = await insertGroup(tx, accountId, { id: newId(), name: 'Default', isDefault: true, by });
  await addNumberToGroup(tx, accountId, group.id, number.id);
  return { group, number };
}
