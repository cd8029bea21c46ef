import type { Queryable } from '../../db/client.ts';
import { findActiveNumberByE164 } from '../../db/queries/inbound.ts';
import type { PhoneNumberRow } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';

/**
 * The active number a carrier called (`To`), which also names the account; PROV-002 when none, or
 * when another provider serves it (a simulated call never reaches a Twilio or SMPP number).
 * Carriers do not all write it in E.164 (a missing +), so it is normalised first.
 */
export async function ourCalledNumber(db: Queryable, to: string, provider: string): Promise<PhoneNumberRow> {
  const text = to.trim();
  const international = /^\d{8,15}$/.test(text) ? `+${text}` : text;
  const e164 = parseMobile(international)?.number ?? international;
  const number = await findActiveNumberByE164(db, e164);
  return number?.provider === provider ? number : fail('PROV-002', 'No phone number matches this call.');
}
