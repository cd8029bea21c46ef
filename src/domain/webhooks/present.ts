import type { Static } from '@sinclair/typebox';
import type { DeliveryRow } from '../../db/queries/webhook-deliveries.ts';
import type { WebhookRow } from '../../db/queries/webhooks.ts';
import type { EventType } from '../../schemas/enums.ts';
import type { Delivery, Webhook, WebhookWithSecret } from '../../schemas/webhooks.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** The Webhook shape of the API (the secret only where a use case shows it; unset fields left out). */
export function presentWebhook(w: WebhookRow, opts: { withSecret: true }): Static<typeof WebhookWithSecret>;
export function presentWebhook(w: WebhookRow): Static<typeof Webhook>;
export function presentWebhook(w: WebhookRow, opts: { withSecret?: boolean } = {}) {
  return omitNullsAs<Static<typeof Webhook> & { secret?: string }>({
    id: w.id,
    type: 'webhook' as const,
    eventTypes: w.event_types as EventType[],
    destination: w.destination,
    // The interface names it `destination`; the published description and its clients read `url`.
    url: w.destination,
    status: w.status,
    disabled:
      w.disabled_at && w.status === 'disabled'
        ? { at: w.disabled_at.toISOString(), reason: w.disabled_reason ?? '' }
        : null,
    paused: w.paused_at
      ? {
          at: w.paused_at.toISOString(),
          reason: w.paused_reason ?? '',
          description:
            'A person who created it, set its destination or was shown its secret left the account: nothing is ' +
            'delivered until an administrator confirms it (POST …/webhooks/{webhookId}/confirm).',
        }
      : null,
    ...(opts.withSecret ? { secret: w.secret } : {}),
    created: stamp(w.created_at, w.created_by),
    updated: stamp(w.updated_at, w.updated_by),
  });
}

/** The Delivery shape of the API: one event to one subscription, with every attempt (unset fields left out). */
export function presentDelivery(d: DeliveryRow) {
  return omitNullsAs<Static<typeof Delivery>>({
    id: d.id,
    webhookId: d.webhook_id,
    eventId: d.event_id,
    eventType: d.event_type as EventType,
    status: d.status,
    attemptCount: d.attempt_log.length,
    nextAttemptAt: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    attempts: d.attempt_log.map((a) => omitNulls(a)),
    createdAt: d.created_at.toISOString(),
    completedAt: d.completed_at ? d.completed_at.toISOString() : null,
  });
}
