import type { Queryable } from '../../db/client.ts';
import { findActiveNumberByE164 } from '../../db/queries/inbound.ts';
import type { PhoneNumberRow } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';

/**
 * The active number a carrier called (`To`), which also names the account; PROV-002 when none.
 * Carriers do not all write it in E.164 (a missing +), so it is normalised first.
 */
export async function ourCalledNumber(db: Queryable, to: string): Promise<PhoneNumberRow> {
  const text = to.trim();
  const international = /^\d{8,15}$/.test(text) ? `+${text}` : text;
  const e164 = parseMobile(international)?.number ?? international;
  return (await findActiveNumberByE164(db, e164)) ?? fail('PROV-002', 'No phone number matches this call.');
}
