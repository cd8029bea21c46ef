import { createCampaign } from '../../domain/campaigns/create-campaign.ts';
import { createQuickCampaign } from '../../domain/campaigns/create-quick-campaign.ts';
import { deleteCampaign } from '../../domain/campaigns/delete-campaign.ts';
import { getCampaign } from '../../domain/campaigns/get-campaign.ts';
import { listCampaigns } from '../../domain/campaigns/list-campaigns.ts';
import { updateCampaign } from '../../domain/campaigns/update-campaign.ts';
import {
  Campaign,
  CampaignListQuery,
  CampaignParams,
  CreateCampaignBody,
  QuickCampaignBody,
  QuickCampaignResult,
  UpdateCampaignBody,
} from '../../schemas/campaigns.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['campaigns'];

export async function campaignRoutes(app: App) {
  const base = '/v1/accounts/:accountId/campaigns';

  app.post(
    '/v1/accounts/:accountId/quickcampaigns',
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Create and run a campaign',
        description:
          'Sends `message` to the members of `listId` from the numbers of `groupId`, now (trigger `M`, ' +
          'answering the job) or at a future `sendAt` (trigger `S`, status `scheduled`, no job yet). ' +
          'A send refused now (e.g. 402 ACCT-002) leaves no campaign behind.',
        params: IdParam('accountId'),
        body: QuickCampaignBody,
        response: { 200: Envelope(QuickCampaignResult), ...errorResponses(402) },
      },
    },
    async (req) =>
      ok(
        await createQuickCampaign(
          app.ctx.db,
          req.params.accountId,
          req.body,
          req.actor,
          app.ctx.config,
          app.ctx.config.quietHoursEnabled,
        ),
      ),
  );

  app.get(
    base,
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'List campaigns',
        description: 'Newest first; `name` filters by partial, case-insensitive match.',
        params: IdParam('accountId'),
        querystring: CampaignListQuery,
        response: { 200: Collection(Campaign), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(
        await listCampaigns(app.ctx.db, req.params.accountId, { name }, { offset, limit }),
        (c) => c,
      );
    },
  );

  app.post(
    base,
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Create a campaign',
        description:
          'It runs once when `nextExecution` comes (a past time: at once); without one it stays a draft. ' +
          'Recurring (cron) schedules are not supported (400). `name` may be left out (the published request has ' +
          'none): the campaign is then named after its creation time ("Campaign 2025-03-01 14:05 UTC"). ' +
          '`filters` also takes the published forms: `tags` as plain strings, `contacts` as contact ids (CONT-002 ' +
          'for one not in the account).',
        params: IdParam('accountId'),
        body: CreateCampaignBody,
        response: { 201: Envelope(Campaign), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await createCampaign(
              app.ctx.db,
              req.params.accountId,
              req.body,
              req.actor,
              app.ctx.config.externalsUrl,
            ),
          ),
        ),
  );

  app.get(
    `${base}/:campaignId`,
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'Get a campaign',
        params: CampaignParams,
        response: { 200: Envelope(Campaign), ...errorResponses() },
      },
    },
    async (req) => ok(await getCampaign(app.ctx.db, req.params.accountId, req.params.campaignId)),
  );

  app.put(
    `${base}/:campaignId`,
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Update a campaign',
        description:
          'Updates the given fields only (`filters.list`, `filters.q`, `filters.attributes`, `filters.tags` each on its own). ' +
          '`paused: true` holds a scheduled run; `false` releases it.',
        params: CampaignParams,
        body: UpdateCampaignBody,
        response: { 200: Envelope(Campaign), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await updateCampaign(
          app.ctx.db,
          req.params.accountId,
          req.params.campaignId,
          req.body,
          req.actor,
          app.ctx.config.externalsUrl,
        ),
      ),
  );

  app.delete(
    `${base}/:campaignId`,
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Delete a campaign',
        description: 'Its messages and jobs stay.',
        params: CampaignParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteCampaign(app.ctx.db, req.params.accountId, req.params.campaignId);
      return { success: true as const };
    },
  );
}
