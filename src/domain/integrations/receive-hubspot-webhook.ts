import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { findIntegrationAnyAccount, requestSync } from '../../db/queries/integrations.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { CrmCredentials } from './crm/index.ts';

/** How old a signed request may be (HubSpot's own rule: 5 minutes). */
export const HUBSPOT_WEBHOOK_TOLERANCE_MS = 5 * 60_000;

/**
 * The v3 signature HubSpot sends in X-HubSpot-Signature-v3: base64 of HMAC-SHA256 under the app's
 * client secret over method, the full request URI, the raw body and X-HubSpot-Request-Timestamp.
 */
export function hubspotSignatureV3(
  secret: string,
  method: string,
  uri: string,
  body: string,
  timestamp: string,
) {
  return createHmac('sha256', secret).update(`${method}${uri}${body}${timestamp}`, 'utf8').digest('base64');
}

/**
 * A HubSpot webhook call for one connection (its URL names it): with a valid v3 signature under
 * the connection's `webhookSecret` and a timestamp within 5 minutes, the connection's sync is made
 * due now (the incremental sync then reads what changed). Anything else — unknown connection, no
 * secret configured, bad or stale signature — is 401 INT-006, the same answer for each.
 */
export async function receiveHubspotWebhook(
  ctx: Pick<AppContext, 'db' | 'secrets'>,
  req: {
    integrationId: string;
    method: string;
    uri: string;
    body: string;
    signature?: string;
    timestamp?: string;
  },
  now = Date.now(),
): Promise<void> {
  const ts = Number(req.timestamp);
  if (!req.signature || !Number.isFinite(ts) || Math.abs(now - ts) > HUBSPOT_WEBHOOK_TOLERANCE_MS)
    fail('INT-006');
  if (!isId(req.integrationId)) fail('INT-006');
  const row = await findIntegrationAnyAccount(ctx.db, req.integrationId);
  if (row?.type !== 'hubspot') fail('INT-006');
  const creds = JSON.parse(ctx.secrets.open(row.credentials)) as CrmCredentials;
  if (!creds.webhookSecret) fail('INT-006');
  const expected = Buffer.from(
    hubspotSignatureV3(creds.webhookSecret, req.method, req.uri, req.body, String(req.timestamp)),
  );
  const given = Buffer.from(req.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) fail('INT-006');
  await requestSync(ctx.db, row.account_id, row.id);
}
