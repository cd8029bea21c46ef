import type { Queryable } from '../../db/client.ts';
import { listPhoneNumbers as queryPhoneNumbers } from '../../db/queries/phone-numbers.ts';
import { presentPhoneNumbers } from './present.ts';

/** A page of the account's held numbers (or, with status `released`, the ones given back). */
export async function listPhoneNumbers(
  db: Queryable,
  accountId: string,
  q: { status: 'active' | 'released'; offset: number; limit: number },
) {
  const { rows, totalCount } = await queryPhoneNumbers(db, accountId, {
    released: q.status === 'released',
    offset: q.offset,
    limit: q.limit,
  });
  return {
    items: await presentPhoneNumbers(db, accountId, rows),
    totalCount,
    offset: q.offset,
    limit: q.limit,
  };
}
