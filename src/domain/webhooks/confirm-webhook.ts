import type { Queryable } from '../../db/client.ts';
import { confirmPausedWebhook, type WebhookRow } from '../../db/queries/webhooks.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { getWebhook } from './get-webhook.ts';

/**
 * Resumes a subscription paused because a person who held it (created it, set its destination or
 * was shown its secret) left the account: an administrator (`admin`, else HOOK-007) has looked at
 * where it points and keeps it. Deliveries start again with the next event; the ones given up at
 * the pause can be replayed. HOOK-006 when it is not paused.
 */
export async function confirmWebhook(
  db: Queryable,
  accountId: string,
  idOrUrl: string,
  by: Actor,
  admin: boolean,
): Promise<WebhookRow> {
  if (!admin) fail('HOOK-007');
  const current = await getWebhook(db, accountId, idOrUrl);
  return (await confirmPausedWebhook(db, accountId, current.id, by)) ?? fail('HOOK-006');
}
