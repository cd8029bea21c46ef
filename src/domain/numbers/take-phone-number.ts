import { type Db, withTx } from '../../db/client.ts';
import { addNumberToGroup, getDefaultGroup, getGroup } from '../../db/queries/groups.ts';
import { insertPhoneNumber } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';
import { defaultThroughput } from '../../messaging/throughput.ts';
import { inventoryNumber } from '../../providers/simulator/inventory.ts';
import { isId, newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { channelsFor } from './channels.ts';
import { presentPhoneNumbers } from './present.ts';
import type { NumberVerifier } from './verify-with-provider.ts';

/** The provider instance a number sends through (providers/names.ts): `simulator`, `twilio`, `smpp` or one of PROVIDERS. */
export type NumberProvider = string;

/** A number as libphonenumber types it, in our three number types. */
function numberType(lineType: string): string {
  if (lineType === 'tollFree') return 'tollfree';
  if (lineType === 'mobile') return 'mobile';
  return 'local';
}

function resolve(input: string, provider: NumberProvider) {
  const parsed = parseMobile(input);
  // Inventory numbers are valid by definition: some sit in ranges reserved for drama
  // (e.g. Ofcom's 07700 900xxx) that libphonenumber reports as invalid.
  const compact = input.replace(/[\s()\-.]/g, '');
  const stock = inventoryNumber(parsed?.number ?? compact);
  if (provider === 'simulator') {
    if (stock)
      return { number: stock.number, country: stock.country, type: stock.type, features: stock.features };
    if (!parsed || !compact.startsWith('+')) fail('NUM-004');
    fail('NUM-002', 'The simulator has no such number: pick one from availablephonenumbers.');
  }
  if (!parsed || !compact.startsWith('+')) fail('NUM-004');
  return {
    number: parsed.number,
    country: parsed.country,
    type: numberType(parsed.lineType),
    features: ['sms'],
  };
}

/**
 * Takes a number for the account: from the simulator's inventory (it must be free), or a number
 * the account brings from a carrier (any other provider instance: twilio, smpp, one of PROVIDERS). The number joins the given group or the
 * default group. A carrier number is `verified` only when its provider confirms it (a number of a
 * Twilio-compatible instance must be listed by that account's IncomingPhoneNumbers); an unverified number cannot send (NUM-010).
 * A number on an SMPP carrier must have been assigned to the account there by the operator, else NUM-011.
 * Answers the Phone number shape.
 */
export async function takePhoneNumber(
  db: Db,
  accountId: string,
  input: {
    number: string;
    name?: string;
    groupId?: string;
    provider?: NumberProvider;
    dailyCap?: number | null;
  },
  by: Actor,
  verify: NumberVerifier,
) {
  const provider = input.provider ?? 'simulator';
  const n = resolve(input.number, provider);
  // Asked before the transaction: no row lock is held across a network call.
  const verified = await verify(provider, n.number, accountId);
  // A carrier that cannot be asked: the number is the account's only when the operator assigned it
  // (refused rather than held unverified, which would keep it from the account it belongs to).
  if (!verified && verify.assigned?.(provider))
    fail(
      'NUM-011',
      `${n.number} is not assigned to this account on ${provider}: ask the operator to assign it.`,
    );
  return withTx(db, async (tx) => {
    const group =
      input.groupId === undefined
        ? await getDefaultGroup(tx, accountId)
        : isId(input.groupId)
          ? await getGroup(tx, accountId, input.groupId)
          : undefined;
    if (input.groupId !== undefined && !group) fail('GRP-001');
    let row: Awaited<ReturnType<typeof insertPhoneNumber>>;
    try {
      row = await insertPhoneNumber(tx, accountId, {
        id: newId(),
        number: n.number,
        country: n.country,
        type: n.type,
        provider,
        name: input.name ?? null,
        throughputMps: defaultThroughput(n.type),
        channels: channelsFor(n.features),
        supportedDestinations: [n.country],
        by,
        verified,
        dailyCap: input.dailyCap ?? null,
      });
    } catch (err) {
      // The unique index on held numbers: someone (maybe this account) holds it already.
      if ((err as { code?: string }).code === '23505') fail('NUM-002');
      throw err;
    }
    if (group) await addNumberToGroup(tx, accountId, group.id, row.id);
    return (await presentPhoneNumbers(tx, accountId, [row]))[0];
  });
}
