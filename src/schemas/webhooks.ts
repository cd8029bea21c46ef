import { Type } from '@sinclair/typebox';
import { AuditStamp, Id, LiteralUnion } from './common.ts';
import { EVENT_TYPES } from './enums.ts';
import { EVENT_DOCS } from './event-docs.ts';

/** One of the ten event types. */
export const EventTypeSchema = LiteralUnion(EVENT_TYPES, { description: 'An event type.' });

export const Webhook = Type.Object({
  id: Type.String(),
  type: Type.Literal('webhook'),
  eventTypes: Type.Array(EventTypeSchema),
  destination: Type.String({ description: 'The address notifications are POSTed to.' }),
  url: Type.String({ description: 'The same as `destination` (the published description reads `url`).' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('paused')], {
    description:
      '`paused`: a person who created it, set its destination or was shown its secret left the account; nothing ' +
      'is delivered until an administrator confirms it.',
  }),
  disabled: Type.Optional(
    Type.Object(
      { at: Type.String({ format: 'date-time' }), reason: Type.String() },
      {
        description:
          'Why and when the subscription stopped (410 Gone, 5 days of failures, or through the API); absent while active.',
      },
    ),
  ),
  paused: Type.Optional(
    Type.Object(
      {
        at: Type.String({ format: 'date-time' }),
        reason: Type.String({ description: '`creator-removed`.' }),
        description: Type.String(),
      },
      { description: 'Since when and why the subscription is paused; absent unless paused.' },
    ),
  ),
  created: AuditStamp,
  updated: AuditStamp,
});

/** The Webhook with its signing secret: answered on creation and on rotation only. */
export const WebhookWithSecret = Type.Composite([
  Webhook,
  Type.Object({
    secret: Type.String({
      description: 'Standard Webhooks signing secret (`whsec_` + base64). Shown only now.',
    }),
  }),
]);

const Destination = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description }));

export const CreateWebhookBody = Type.Object({
  url: Destination('Absolute http(s) URL. Required unless `destination` is given.'),
  destination: Destination('The same as `url` (either name is accepted; both only if equal).'),
  eventTypes: Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length }),
});

export const UpdateWebhookBody = Type.Object({
  url: Destination('A new destination.'),
  destination: Destination('The same as `url` (either name is accepted; both only if equal).'),
  eventTypes: Type.Optional(Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length })),
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
      description: '`active` re-enables a disabled subscription.',
    }),
  ),
});

export const WebhookParams = Type.Object({
  accountId: Type.String({ minLength: 1 }),
  webhookId: Type.String({
    minLength: 1,
    description: 'The webhook id, or its destination URL, URL-encoded.',
  }),
});

export const DeliveryParams = Type.Object({
  accountId: Type.String({ minLength: 1 }),
  webhookId: Type.String({ minLength: 1 }),
  deliveryId: Id(),
});

export const Attempt = Type.Object({
  at: Type.String({ format: 'date-time' }),
  statusCode: Type.Optional(Type.Integer({ description: 'HTTP status; absent when no response arrived.' })),
  durationMs: Type.Integer(),
  error: Type.Optional(Type.String()),
});

export const Delivery = Type.Object({
  id: Type.String(),
  webhookId: Type.String(),
  eventId: Type.String({ description: 'Also the `webhook-id` header of every attempt.' }),
  eventType: EventTypeSchema,
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attemptCount: Type.Integer(),
  nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
  lastStatusCode: Type.Optional(Type.Integer()),
  lastError: Type.Optional(Type.String()),
  attempts: Type.Array(Attempt),
  createdAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

// ---- The notifications themselves (the OpenAPI `webhooks` section) ----

/**
 * The OpenAPI 3.1 `webhooks` object: one entry per event type, documenting the POST Sparrow sends,
 * its Standard Webhooks headers and its body.
 */
export function webhookEventsOpenApi(): Record<string, unknown> {
  const header = (description: string) => ({ required: true, schema: { type: 'string' }, description });
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: EVENT_DOCS[type].summary,
          description:
            'Sent to every active subscription whose eventTypes include this type. Signed per Standard Webhooks; ' +
            'any 2xx within 10 s is success, otherwise retried (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, ' +
            'with jitter; Retry-After honoured on 429/503; redirects not followed; 410 disables the subscription).',
          parameters: [
            {
              in: 'header',
              name: 'webhook-id',
              ...header('The event id; the same on every retry — deduplicate on it.'),
            },
            {
              in: 'header',
              name: 'webhook-timestamp',
              ...header('Unix seconds of this attempt; reject if more than 5 minutes away.'),
            },
            {
              in: 'header',
              name: 'webhook-signature',
              ...header(
                'Space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; two during a secret rotation.',
              ),
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: Type.Object({
                  type: Type.Literal(type),
                  timestamp: Type.String({ format: 'date-time', description: 'When the event happened.' }),
                  accountId: Type.String(),
                  eventId: Type.String(),
                  data: Type.Object({}, { additionalProperties: true, description: EVENT_DOCS[type].data }),
                }),
              },
            },
          },
          responses: { '200': { description: 'Any 2xx acknowledges the event.' } },
        },
      },
    ]),
  );
}
