import { Type } from '@sinclair/typebox';
import { createIntegration } from '../../domain/integrations/create-integration.ts';
import { crmAccess } from '../../domain/integrations/crm-access.ts';
import { deleteIntegration } from '../../domain/integrations/delete-integration.ts';
import { getIntegration, listIntegrations } from '../../domain/integrations/get-integration.ts';
import { receiveHubspotWebhook } from '../../domain/integrations/receive-hubspot-webhook.ts';
import { requestSync } from '../../domain/integrations/request-sync.ts';
import { updateIntegration } from '../../domain/integrations/update-integration.ts';
import { Collection, Envelope, errorResponses, IdParam, PageQuery } from '../../schemas/common.ts';
import {
  CreateIntegrationBody,
  DeleteIntegrationQuery,
  Integration,
  IntegrationParams,
  UpdateIntegrationBody,
} from '../../schemas/integrations.ts';
import { JSON_BODY_LIMIT } from '../plugins/content-types.ts';
import { noContent, ok } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['integrations'];

export async function integrationRoutes(app: App) {
  const base = '/v1/accounts/:accountId/integrations';

  app.get(
    base,
    {
      config: { scope: 'integrations:read' },
      schema: {
        tags,
        summary: 'List CRM integrations',
        params: IdParam('accountId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Integration), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit } = req.query;
      const p = await listIntegrations(app.ctx.db, req.params.accountId, offset, limit);
      return {
        success: true as const,
        data: p.items,
        pagination: {
          limit,
          offset,
          hasNext: offset + p.items.length < p.totalCount,
          totalCount: p.totalCount,
        },
      };
    },
  );

  app.post(
    base,
    {
      config: { scope: 'integrations:write' },
      schema: {
        tags,
        summary: 'Connect a CRM (HubSpot, Pipedrive or ActiveCampaign)',
        description:
          'HubSpot: `accessToken` (a private-app token); Pipedrive: `apiToken`; ActiveCampaign: `apiUrl` and `apiKey`. ' +
          'The credential is checked against the CRM (422 INT-002 when refused, 424 INT-003 when the CRM cannot be ' +
          'reached), stored sealed, and a first full sync starts. 409 INT-004: the account has this CRM connected already.',
        params: IdParam('accountId'),
        body: CreateIntegrationBody,
        response: { 201: Envelope(Integration), ...errorResponses(409, 422, 424) },
      },
    },
    async (req, reply) => {
      const row = await createIntegration(
        app.ctx.db,
        crmAccess(app.ctx),
        req.params.accountId,
        req.body,
        req.actor,
      );
      reply.code(201);
      return ok(await getIntegration(app.ctx.db, req.params.accountId, row.id));
    },
  );

  app.get(
    `${base}/:integrationId`,
    {
      config: { scope: 'integrations:read' },
      schema: {
        tags,
        summary: 'Get a CRM integration: status, last sync, counts, last error',
        params: IntegrationParams,
        response: { 200: Envelope(Integration), ...errorResponses() },
      },
    },
    async (req) => ok(await getIntegration(app.ctx.db, req.params.accountId, req.params.integrationId)),
  );

  app.put(
    `${base}/:integrationId`,
    {
      config: { scope: 'integrations:write' },
      schema: {
        tags,
        summary: 'Change what an integration syncs, or its credential',
        description:
          'A new credential is checked against the CRM first (422 INT-002) and clears an `error` status.',
        params: IntegrationParams,
        body: UpdateIntegrationBody,
        response: { 200: Envelope(Integration), ...errorResponses(422, 424) },
      },
    },
    async (req) => {
      const row = await updateIntegration(
        app.ctx.db,
        crmAccess(app.ctx),
        req.params.accountId,
        req.params.integrationId,
        req.body,
        req.actor,
      );
      return ok(await getIntegration(app.ctx.db, req.params.accountId, row.id));
    },
  );

  app.delete(
    `${base}/:integrationId`,
    {
      config: { scope: 'integrations:write' },
      schema: {
        tags,
        summary: 'Disconnect a CRM',
        description:
          "Syncing and writing to the CRM stop and the credential is deleted. The CRM's ids stay on contacts unless `clearIds=true`.",
        params: IntegrationParams,
        querystring: DeleteIntegrationQuery,
        response: { 204: Type.Null({ description: 'Disconnected.' }), ...errorResponses() },
      },
    },
    async (req, reply) => {
      await deleteIntegration(app.ctx.db, req.params.accountId, req.params.integrationId, {
        clearIds: req.query.clearIds,
        by: req.actor,
      });
      return noContent(reply);
    },
  );

  app.post(
    `${base}/:integrationId/sync`,
    {
      config: { scope: 'integrations:write' },
      schema: {
        tags,
        summary: 'Sync now',
        description: 'The sync is due at once; the worker runs it (202). Read its progress with GET.',
        params: IntegrationParams,
        response: { 202: Envelope(Integration), ...errorResponses() },
      },
    },
    async (req, reply) => {
      await requestSync(app.ctx.db, req.params.accountId, req.params.integrationId);
      reply.code(202);
      return ok(await getIntegration(app.ctx.db, req.params.accountId, req.params.integrationId));
    },
  );
}

/**
 * HubSpot's webhook on the public listener, per connection: a call signed with
 * X-HubSpot-Signature-v3 under the connection's `webhookSecret` starts its sync at once.
 */
export async function hubspotWebhookRoutes(app: App) {
  // The signature covers the exact bytes: this route keeps the JSON body as text.
  await app.register(async (raw) => {
    raw.removeContentTypeParser('application/json');
    raw.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
      (_req, body, done) => done(null, body),
    );
    raw.post<{ Body: string; Params: { integrationId: string } }>(
      '/v1/providers/hubspot/:integrationId/webhook',
      {
        schema: {
          tags,
          summary: 'HubSpot webhook (contact changes)',
          description:
            'HubSpot calls signed with `X-HubSpot-Signature-v3` (HMAC-SHA256 under the app client secret given as ' +
            "the connection's `webhookSecret`, over method, URI, body and `X-HubSpot-Request-Timestamp`, 5 minutes " +
            'tolerance) make the connection sync now. Anything else → 401 INT-006.',
          params: Type.Object({ integrationId: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 200: Envelope(Type.Object({ outcome: Type.String() })), ...errorResponses() },
        },
      },
      async (req) => {
        const header = (name: string) => {
          const v = req.headers[name];
          return typeof v === 'string' ? v : undefined;
        };
        await receiveHubspotWebhook(app.ctx, {
          integrationId: req.params.integrationId,
          method: req.method,
          uri: `${app.ctx.config.externalsUrl}${req.url}`,
          body: typeof req.body === 'string' ? req.body : '',
          signature: header('x-hubspot-signature-v3'),
          timestamp: header('x-hubspot-request-timestamp'),
        });
        return ok({ outcome: 'sync-due' });
      },
    );
  });
}
