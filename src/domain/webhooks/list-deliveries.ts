import type { Queryable } from '../../db/client.ts';
import { listDeliveries as listRows } from '../../db/queries/webhook-deliveries.ts';
import { getWebhook } from './get-webhook.ts';

/** A page of a subscription's deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  db: Queryable,
  accountId: string,
  idOrUrl: string,
  offset: number,
  limit: number,
) {
  const hook = await getWebhook(db, accountId, idOrUrl);
  const { items, totalCount } = await listRows(db, accountId, hook.id, offset, limit);
  return { items, totalCount, offset, limit };
}
