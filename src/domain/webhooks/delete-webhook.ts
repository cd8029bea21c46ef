import type { Queryable } from '../../db/client.ts';
import { deleteWebhook as deleteRow } from '../../db/queries/webhooks.ts';
import { fail } from '../../errors.ts';
import { getWebhook } from './get-webhook.ts';

/** Unsubscribes (by id or destination URL); its delivery history goes with it. */
export async function deleteWebhook(db: Queryable, accountId: string, idOrUrl: string): Promise<void> {
  const row = await getWebhook(db, accountId, idOrUrl);
  if (!(await deleteRow(db, accountId, row.id))) fail('HOOK-001');
}
