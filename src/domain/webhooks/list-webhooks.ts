import type { Queryable } from '../../db/client.ts';
import { listWebhooks as listRows } from '../../db/queries/webhooks.ts';

/** A page of the account's subscriptions, oldest first. */
export async function listWebhooks(db: Queryable, accountId: string, offset: number, limit: number) {
  const { items, totalCount } = await listRows(db, accountId, offset, limit);
  return { items, totalCount, offset, limit };
}
