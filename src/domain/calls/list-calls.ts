import type { Queryable } from '../../db/client.ts';
import { type CallFilter, listCalls as queryCalls } from '../../db/queries/calls.ts';
import type { Page } from '../page.ts';
import { type Call, presentCalls } from './present-call.ts';

/**
 * A page of the account's calls, newest first, filtered by direction, status, contact and a
 * creation range (`from` inclusive, `to` exclusive).
 */
export async function listCalls(
  db: Queryable,
  accountId: string,
  filter: CallFilter,
  page: { offset: number; limit: number },
): Promise<Page<Call>> {
  const { rows, total } = await queryCalls(db, accountId, filter, page);
  return { items: await presentCalls(db, accountId, rows), totalCount: total, ...page };
}
