import { type Db, withTx } from '../../db/client.ts';
import {
  getPhoneNumber,
  updatePhoneNumber as saveNumber,
  setPhoneNumberVerified,
} from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { inventoryNumber } from '../../providers/simulator/inventory.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentPhoneNumbers } from './present.ts';
import type { NumberProvider } from './take-phone-number.ts';
import type { NumberVerifier } from './verify-with-provider.ts';

/** The changes a phone-number update may carry; absent fields stay as they are. */
export interface PhoneNumberChanges {
  name?: string | null;
  forwardTo?: Record<string, unknown> | null;
  universalReply?: boolean;
  /** Merged into the number's channels (objects merge, everything else replaces). */
  channels?: Record<string, unknown>;
  throughput?: number;
  provider?: NumberProvider;
  /** Messages a day; null removes the cap. */
  dailyCap?: number | null;
}

type Json = Record<string, unknown>;

function isPlain(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge of plain objects; arrays and scalars in the patch replace. */
export function mergeDeep(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    out[k] = isPlain(v) && isPlain(out[k]) ? mergeDeep(out[k] as Json, v) : v;
  }
  return out;
}

/**
 * Updates a held number's settings; a released or unknown number is NUM-001. A change of provider
 * asks the new provider to verify the number (as taking it does); a move to an SMPP carrier where
 * the operator did not assign the number to this account is refused (NUM-011).
 */
export async function updatePhoneNumber(
  db: Db,
  accountId: string,
  id: string,
  c: PhoneNumberChanges,
  by: Actor,
  verify: NumberVerifier,
) {
  if (!isId(id)) fail('NUM-001');
  const before = await getPhoneNumber(db, accountId, id);
  // Asked before the transaction: no row lock is held across a network call.
  const verified =
    before && before.status !== 'released' && c.provider !== undefined && c.provider !== before.provider
      ? await verify(c.provider, before.number, accountId)
      : undefined;
  // A number moves to an SMPP carrier only where the operator assigned it to this account (NUM-011).
  if (verified === false && c.provider !== undefined && verify.assigned?.(c.provider))
    fail(
      'NUM-011',
      `${before?.number} is not assigned to this account on ${c.provider}: ask the operator to assign it.`,
    );
  return withTx(db, async (tx) => {
    const current = await getPhoneNumber(tx, accountId, id);
    if (!current || current.status === 'released') fail('NUM-001');
    if (c.provider === 'simulator' && current.provider !== 'simulator' && !inventoryNumber(current.number))
      fail('NUM-005');
    let channels = c.channels ? mergeDeep(current.channels, c.channels) : current.channels;
    // `universalReply` is shown twice (on the number and on its sms channel): keep them one value.
    let universalReply = current.universal_reply;
    const smsReply = (c.channels?.sms as Json | undefined)?.universalReply;
    if (c.universalReply !== undefined) universalReply = c.universalReply;
    else if (typeof smsReply === 'boolean') universalReply = smsReply;
    channels = mergeDeep(channels, { sms: { universalReply } });
    const row = await saveNumber(tx, accountId, id, {
      name: c.name === undefined ? current.name : c.name,
      forwardTo: c.forwardTo === undefined ? current.forward_to : c.forwardTo,
      universalReply,
      channels,
      throughputMps: c.throughput ?? current.throughput_mps,
      provider: c.provider ?? current.provider,
      dailyCap: c.dailyCap === undefined ? current.daily_cap : c.dailyCap,
      by,
    });
    if (!row) fail('NUM-001');
    const saved =
      verified === undefined || row.provider !== c.provider
        ? row
        : ((await setPhoneNumberVerified(tx, accountId, id, verified, by)) ?? row);
    return (await presentPhoneNumbers(tx, accountId, [saved]))[0];
  });
}
