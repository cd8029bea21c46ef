import type { Db } from '../../db/client.ts';
import { getPhoneNumber, setPhoneNumberVerified } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentPhoneNumbers } from './present.ts';
import type { NumberVerifier } from './verify-with-provider.ts';

/**
 * Asks the number's provider again whether the number is ours (e.g. after it was added to the
 * Twilio account) and records the answer in `verified`. Answers the Phone number shape; NUM-001
 * for an unknown or released number.
 */
export async function reverifyPhoneNumber(
  db: Db,
  accountId: string,
  id: string,
  by: Actor,
  verify: NumberVerifier,
) {
  const current = isId(id) ? await getPhoneNumber(db, accountId, id) : undefined;
  if (!current || current.status === 'released') fail('NUM-001');
  const verified = await verify(current.provider, current.number, accountId);
  const row = (await setPhoneNumberVerified(db, accountId, id, verified, by)) ?? fail('NUM-001');
  return (await presentPhoneNumbers(db, accountId, [row]))[0];
}
