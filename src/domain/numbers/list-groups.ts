import type { Queryable } from '../../db/client.ts';
import { listGroups as queryGroups } from '../../db/queries/groups.ts';
import { presentGroups } from './present.ts';

/** A page of the account's groups, oldest first, each with its numbers and senders. */
export async function listGroups(db: Queryable, accountId: string, q: { offset: number; limit: number }) {
  const { rows, totalCount } = await queryGroups(db, accountId, q);
  return { items: await presentGroups(db, accountId, rows), totalCount, offset: q.offset, limit: q.limit };
}
