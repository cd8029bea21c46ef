import { Type } from '@sinclair/typebox';
import { confirmWebhook } from '../../domain/webhooks/confirm-webhook.ts';
import { createWebhook } from '../../domain/webhooks/create-webhook.ts';
import { deleteWebhook } from '../../domain/webhooks/delete-webhook.ts';
import { getWebhook } from '../../domain/webhooks/get-webhook.ts';
import { listDeliveries } from '../../domain/webhooks/list-deliveries.ts';
import { listWebhooks } from '../../domain/webhooks/list-webhooks.ts';
import { presentDelivery, presentWebhook } from '../../domain/webhooks/present.ts';
import { replayDelivery } from '../../domain/webhooks/replay-delivery.ts';
import { rotateSecret } from '../../domain/webhooks/rotate-secret.ts';
import { updateWebhook } from '../../domain/webhooks/update-webhook.ts';
import { Collection, Envelope, errorResponses, IdParam, PageQuery } from '../../schemas/common.ts';
import {
  CreateWebhookBody,
  Delivery,
  DeliveryParams,
  UpdateWebhookBody,
  Webhook,
  WebhookParams,
  WebhookWithSecret,
} from '../../schemas/webhooks.ts';
import { noContent, ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['webhooks'];

export async function webhookRoutes(app: App) {
  const base = '/v1/accounts/:accountId/webhooks';

  app.get(
    base,
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        summary: 'List webhook subscriptions',
        params: IdParam('accountId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Webhook), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit } = req.query;
      return page(await listWebhooks(app.ctx.db, req.params.accountId, offset, limit), (w) =>
        presentWebhook(w),
      );
    },
  );

  app.post(
    base,
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Subscribe a destination to events',
        description:
          'Answers the subscription with its signing `secret`, shown only here and on rotation. 409 HOOK-004 if the URL is already subscribed.',
        params: IdParam('accountId'),
        body: CreateWebhookBody,
        response: { 200: Envelope(WebhookWithSecret), ...errorResponses(409) },
      },
    },
    async (req) => {
      const row = await createWebhook(app.ctx.db, req.params.accountId, req.body, {
        allowPrivate: app.ctx.config.webhooksAllowPrivate,
        by: req.actor,
        secrets: app.ctx.secrets,
      });
      return ok(presentWebhook(row, { withSecret: true }));
    },
  );

  app.get(
    `${base}/:webhookId`,
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        summary: 'Get a webhook subscription (by id or URL-encoded destination)',
        params: WebhookParams,
        response: { 200: Envelope(Webhook), ...errorResponses() },
      },
    },
    async (req) =>
      ok(presentWebhook(await getWebhook(app.ctx.db, req.params.accountId, req.params.webhookId))),
  );

  app.put(
    `${base}/:webhookId`,
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Change a webhook subscription (destination, event types, or re-enable / disable)',
        description:
          'A paused subscription (a person who held it left the account) changes status only by an administrator ' +
          '(403 HOOK-007): `active` then confirms it.',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Envelope(Webhook), ...errorResponses(409) },
      },
    },
    async (req) => {
      const row = await updateWebhook(app.ctx.db, req.params.accountId, req.params.webhookId, req.body, {
        allowPrivate: app.ctx.config.webhooksAllowPrivate,
        by: req.actor,
        admin: isAdministrator(req.grant?.scopes),
      });
      return ok(presentWebhook(row));
    },
  );

  app.delete(
    `${base}/:webhookId`,
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Unsubscribe (by id or URL-encoded destination)',
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses() },
      },
    },
    async (req, reply) => {
      await deleteWebhook(app.ctx.db, req.params.accountId, req.params.webhookId);
      return noContent(reply);
    },
  );

  app.post(
    `${base}/:webhookId/rotate-secret`,
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Answers the new secret. For 24 h deliveries carry a signature with the previous secret as well.',
        params: WebhookParams,
        response: { 200: Envelope(WebhookWithSecret), ...errorResponses() },
      },
    },
    async (req) => {
      const row = await rotateSecret(
        app.ctx.db,
        req.params.accountId,
        req.params.webhookId,
        req.actor,
        app.ctx.secrets,
      );
      return ok(presentWebhook(row, { withSecret: true }));
    },
  );

  app.post(
    `${base}/:webhookId/confirm`,
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Confirm a paused webhook (an administrator keeps it)',
        description:
          'A subscription is paused when a person who created it, set its destination or was shown its secret ' +
          'leaves the account (its address may be theirs). An administrator (the token also needs `users:write`, ' +
          'else 403 HOOK-007) confirms it: it is active again from the next event. The deliveries given up at the ' +
          'pause can be replayed; events in between were not delivered. 409 HOOK-006 when it is not paused.',
        params: WebhookParams,
        response: { 200: Envelope(Webhook), ...errorResponses(409) },
      },
    },
    async (req) => {
      const row = await confirmWebhook(
        app.ctx.db,
        req.params.accountId,
        req.params.webhookId,
        req.actor,
        isAdministrator(req.grant?.scopes),
      );
      return ok(presentWebhook(row));
    },
  );

  app.get(
    `${base}/:webhookId/deliveries`,
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        summary: "List a subscription's deliveries, newest first, with every attempt",
        params: WebhookParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Delivery), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit } = req.query;
      return page(
        await listDeliveries(app.ctx.db, req.params.accountId, req.params.webhookId, offset, limit),
        presentDelivery,
      );
    },
  );

  app.post(
    `${base}/:webhookId/deliveries/:deliveryId/replay`,
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Send a delivery again (same webhook-id, fresh retry schedule)',
        params: DeliveryParams,
        response: { 200: Envelope(Delivery), ...errorResponses() },
      },
    },
    async (req) => {
      const { accountId, webhookId, deliveryId } = req.params;
      return ok(presentDelivery(await replayDelivery(app.ctx.db, accountId, webhookId, deliveryId)));
    },
  );
}

/** Administrator-only steps ask for `users:write` too: of the roles, only an Administrator has it. */
function isAdministrator(scopes: Set<string> | undefined): boolean {
  return scopes?.has('users:write') === true;
}
