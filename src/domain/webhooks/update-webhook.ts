import type { Db } from '../../db/client.ts';
import { withTx } from '../../db/client.ts';
import { failPendingDeliveries } from '../../db/queries/webhook-deliveries.ts';
import { updateWebhook as updateRow, type WebhookRow } from '../../db/queries/webhooks.ts';
import { fail } from '../../errors.ts';
import type { EventType } from '../../schemas/enums.ts';
import type { Actor } from '../actor.ts';
import { getWebhook } from './get-webhook.ts';
import { holderKey } from './holders.ts';
import { type DestinationInput, pickDestination } from './pick-destination.ts';
import { validateDestination } from './validate-destination.ts';

/**
 * Changes a subscription's destination, event types or status. Setting `status: 'active'`
 * re-enables a disabled one (clearing its failure record); disabling gives up its pending deliveries.
 * A paused subscription (a person who held it left the account) changes status only by an
 * administrator (`admin`: HOOK-007 otherwise): `active` is then the same as confirming it. Whoever
 * sets a new destination becomes one of its holders.
 */
export async function updateWebhook(
  db: Db,
  accountId: string,
  idOrUrl: string,
  input: DestinationInput & { eventTypes?: EventType[]; status?: 'active' | 'disabled' },
  opts: { allowPrivate: boolean; by: Actor; admin: boolean },
): Promise<WebhookRow> {
  const url = pickDestination(input);
  const current = await getWebhook(db, accountId, idOrUrl);
  if (current.status === 'paused' && input.status !== undefined && !opts.admin) fail('HOOK-007');
  const destination = url === undefined ? undefined : await validateDestination(url, opts.allowPrivate);
  return withTx(db, async (tx) => {
    let row: WebhookRow | undefined;
    try {
      row = await updateRow(tx, accountId, current.id, {
        destination,
        eventTypes: input.eventTypes ? [...new Set(input.eventTypes)] : undefined,
        status: input.status,
        disabledReason: 'Disabled through the API.',
        by: opts.by,
        holder: holderKey(opts.by),
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23505') fail('HOOK-004');
      throw err;
    }
    if (!row) return fail('HOOK-001');
    if (input.status === 'disabled')
      await failPendingDeliveries(tx, [row.id], 'The subscription was disabled.');
    return row;
  });
}
