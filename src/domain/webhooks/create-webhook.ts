import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/client.ts';
import { insertWebhook, type WebhookRow } from '../../db/queries/webhooks.ts';
import { fail } from '../../errors.ts';
import type { EventType } from '../../schemas/enums.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { holderKey } from './holders.ts';
import { type DestinationInput, pickDestination } from './pick-destination.ts';
import { generateSecret } from './signing.ts';
import { validateDestination } from './validate-destination.ts';

/**
 * Subscribes a destination to event types with a new signing secret. The destination names the
 * subscription, so a second one for the same URL is 409 HOOK-004. The secret is stored sealed by
 * `secrets` (with SECRETS_KEY) and answered in clear, once. Its creator is its first holder.
 */
export async function createWebhook(
  db: Queryable,
  accountId: string,
  input: DestinationInput & { eventTypes: EventType[] },
  opts: { allowPrivate: boolean; by: Actor; secrets: SecretBox },
): Promise<WebhookRow> {
  const url = pickDestination(input) ?? fail('VAL-001', 'body.url is required (or body.destination).');
  const destination = await validateDestination(url, opts.allowPrivate);
  const secret = generateSecret();
  const row = await insertWebhook(db, accountId, {
    id: newId(),
    destination,
    eventTypes: [...new Set(input.eventTypes)],
    secret: opts.secrets.seal(secret),
    by: opts.by,
    holder: holderKey(opts.by),
  });
  return row ? { ...row, secret } : fail('HOOK-004');
}
