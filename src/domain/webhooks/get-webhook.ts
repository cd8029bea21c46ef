import type { Queryable } from '../../db/client.ts';
import { findWebhook, findWebhookByDestination, type WebhookRow } from '../../db/queries/webhooks.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { destinationSpellings } from './validate-destination.ts';

/**
 * Finds a subscription named by its id or by its URL-encoded destination (the path segment arrives
 * decoded); another account's, or none, is 404 HOOK-001.
 */
export async function getWebhook(db: Queryable, accountId: string, idOrUrl: string): Promise<WebhookRow> {
  const found = isId(idOrUrl)
    ? await findWebhook(db, accountId, idOrUrl)
    : await findWebhookByDestination(db, accountId, destinationSpellings(idOrUrl));
  return found ?? fail('HOOK-001');
}
