import type { Queryable } from '../../db/client.ts';
import { getPhoneNumber as findPhoneNumber } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { presentPhoneNumbers } from './present.ts';

/** One number of the account (released ones too, for history), or NUM-001. */
export async function getPhoneNumber(db: Queryable, accountId: string, id: string) {
  const row = isId(id) ? await findPhoneNumber(db, accountId, id) : undefined;
  if (!row) fail('NUM-001');
  return (await presentPhoneNumbers(db, accountId, [row]))[0];
}
