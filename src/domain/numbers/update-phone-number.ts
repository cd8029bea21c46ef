import { type Db, withTx } from '../../db/client.ts';
import { getPhoneNumber, updatePhoneNumber as saveNumber } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { inventoryNumber } from '../../providers/simulator/inventory.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentPhoneNumbers } from './present.ts';
import type { NumberProvider } from './take-phone-number.ts';

/** The changes a phone-number update may carry; absent fields stay as they are. */
export interface PhoneNumberChanges {
  name?: string | null;
  forwardTo?: Record<string, unknown> | null;
  universalReply?: boolean;
  /** Merged into the number's channels (objects merge, everything else replaces). */
  channels?: Record<string, unknown>;
  throughput?: number;
  provider?: NumberProvider;
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

/** Updates a held number's settings; a released or unknown number is NUM-001. */
export async function updatePhoneNumber(
  db: Db,
  accountId: string,
  id: string,
  c: PhoneNumberChanges,
  by: Actor,
) {
  if (!isId(id)) fail('NUM-001');
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
      by,
    });
    if (!row) fail('NUM-001');
    return (await presentPhoneNumbers(tx, accountId, [row]))[0];
  });
}
