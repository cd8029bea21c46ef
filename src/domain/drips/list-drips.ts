import type { Queryable } from '../../db/client.ts';
import { listDrips as queryDrips } from '../../db/queries/drips.ts';
import type { Page } from '../page.ts';
import { type Drip, presentDrips } from './present-drip.ts';

/** A page of the account's drip campaigns, newest first (optionally by partial, case-insensitive name). */
export async function listDrips(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<Page<Drip>> {
  const { rows, total } = await queryDrips(db, accountId, filter, page);
  return { items: await presentDrips(db, accountId, rows), totalCount: total, ...page };
}
