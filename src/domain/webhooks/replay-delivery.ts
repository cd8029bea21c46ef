import type { Queryable } from '../../db/client.ts';
import { type DeliveryRow, replayDelivery as replayRow } from '../../db/queries/webhook-deliveries.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { getWebhook } from './get-webhook.ts';

/**
 * Sends a delivery again: due now, with a fresh retry cycle and the same webhook-id. A delivery of
 * a disabled subscription waits until the subscription is active again.
 */
export async function replayDelivery(
  db: Queryable,
  accountId: string,
  idOrUrl: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  const hook = await getWebhook(db, accountId, idOrUrl);
  if (!isId(deliveryId)) fail('HOOK-003');
  return (await replayRow(db, accountId, hook.id, deliveryId)) ?? fail('HOOK-003');
}
