import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/client.ts';
import { rotateWebhookSecret, type WebhookRow } from '../../db/queries/webhooks.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { getWebhook } from './get-webhook.ts';
import { holderKey } from './holders.ts';
import { generateSecret } from './signing.ts';

/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * Issues a new signing secret; deliveries carry signatures with both for the next 24 h. The new
 * secret is stored sealed by `secrets` (the previous one keeps its stored form) and answered in clear;
 * whoever rotated it becomes one of its holders.
 */
export async function rotateSecret(
  db: Queryable,
  accountId: string,
  idOrUrl: string,
  by: Actor,
  secrets: SecretBox,
): Promise<WebhookRow> {
  const current = await getWebhook(db, accountId, idOrUrl);
  const secret = generateSecret();
  const row = await rotateWebhookSecret(
    db,
    accountId,
    current.id,
    secrets.seal(secret),
    PREVIOUS_SECRET_GRACE_MS,
    by,
    holderKey(by),
  );
  return row ? { ...row, secret } : fail('HOOK-001');
}
