import type { ClaimedDelivery } from '../../db/queries/webhook-deliveries.ts';
import { publishedEventData } from '../events/published-payload.ts';
import { signatureHeader } from './signing.ts';

/**
 * The Standard Webhooks request for a claimed delivery: body {type, timestamp, accountId, eventId,
 * data} (a message event's data in the published payload's shape: publishedEventData); webhook-id is the event id (the same on every retry and every subscription, so receivers
 * dedupe on it); webhook-timestamp is the attempt's time; one signature per live secret.
 * `open` turns a stored secret into the secret (secrets at rest may be sealed).
 */
export function buildRequest(
  d: ClaimedDelivery,
  now = Date.now(),
  open: (stored: string) => string = (s) => s,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    type: d.event_type,
    timestamp: new Date(d.event_created_at).toISOString(),
    accountId: d.account_id,
    eventId: d.event_id,
    data: publishedEventData(d.event_type, d.event_data, d.message_text),
  });
  const timestamp = Math.floor(now / 1000);
  const secrets = (d.previous_secret ? [d.secret, d.previous_secret] : [d.secret]).map(open);
  return {
    body,
    headers: {
      'user-agent': 'Sparrow-Webhooks/1.0',
      'webhook-id': d.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, d.event_id, timestamp, body),
    },
  };
}
