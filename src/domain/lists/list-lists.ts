import type { Queryable } from '../../db/client.ts';
import { listLists as queryLists } from '../../db/queries/lists.ts';
import type { Page } from '../page.ts';
import { type List, presentLists } from './present-list.ts';

/** A page of the account's lists, newest first (optionally by partial name). */
export async function listLists(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { limit: number; offset: number },
): Promise<Page<List>> {
  const { rows, total } = await queryLists(db, accountId, filter, page);
  return { items: await presentLists(db, accountId, rows), totalCount: total, ...page };
}
