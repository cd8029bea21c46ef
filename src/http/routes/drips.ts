import { createDrip } from '../../domain/drips/create-drip.ts';
import { deactivateDrip } from '../../domain/drips/deactivate-drip.ts';
import { deleteDrip } from '../../domain/drips/delete-drip.ts';
import { getDrip } from '../../domain/drips/get-drip.ts';
import { getExecution } from '../../domain/drips/get-execution.ts';
import { listDrips } from '../../domain/drips/list-drips.ts';
import { migrateDrip } from '../../domain/drips/migrate-drip.ts';
import { updateDrip } from '../../domain/drips/update-drip.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  CreateDripBody,
  Drip,
  DripListQuery,
  DripParams,
  ExecutionQuery,
  ExecutionResult,
  UpdateDripBody,
} from '../../schemas/drips.ts';
import { Workflow } from '../../schemas/workflows.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['dripcampaigns'];

export async function dripRoutes(app: App) {
  const base = '/v1/accounts/:accountId/dripcampaigns';
  const one = `${base}/:dripCampaignId`;

  app.post(
    base,
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Create a drip campaign',
        description:
          'A trigger and ordered messages, each sent `delay` after the previous one (the first `trigger.delay` ' +
          'after entry). Inactive (a draft) unless `activate: true`. Unknown list: 404 LIST-001; unknown group: ' +
          '404 GRP-001; invalid trigger: 400 DRIP-004.',
        params: IdParam('accountId'),
        body: CreateDripBody,
        response: { 201: Envelope(Drip), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await createDrip(
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
    base,
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'List drip campaigns',
        description:
          'Newest first, each with `active` and its stats; `name` filters by partial, case-insensitive match.',
        params: IdParam('accountId'),
        querystring: DripListQuery,
        response: { 200: Collection(Drip), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(await listDrips(app.ctx.db, req.params.accountId, { name }, { offset, limit }), (d) => d);
    },
  );

  app.get(
    one,
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'Get a drip campaign',
        params: DripParams,
        response: { 200: Envelope(Drip), ...errorResponses() },
      },
    },
    async (req) => ok(await getDrip(app.ctx.db, req.params.accountId, req.params.dripCampaignId)),
  );

  app.put(
    one,
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Update a drip campaign',
        description:
          'Updates the given fields; `trigger` part by part; `messages` replaces the messages (an `id` keeps that ' +
          'message and its stats). `activate: true` resumes entries (stopped executions stay stopped); `false` ' +
          'deactivates. `stats` is read-only and ignored. Activating a migrated drip: 409 DRIP-003.',
        params: DripParams,
        body: UpdateDripBody,
        response: { 200: Envelope(Drip), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(
        await updateDrip(
          app.ctx.db,
          req.params.accountId,
          req.params.dripCampaignId,
          req.body,
          req.actor,
          app.ctx.config.externalsUrl,
        ),
      ),
  );

  app.delete(
    one,
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Delete a drip campaign',
        description: 'With its executions (pending messages are never sent); messages already queued stay.',
        params: DripParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteDrip(app.ctx.db, req.params.accountId, req.params.dripCampaignId);
      return { success: true as const };
    },
  );

  app.get(
    `${one}/executions`,
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'Get a drip execution',
        description:
          'ONE execution in `data`: the one at `offset` among the drip’s executions, newest first (optionally of ' +
          '`contactId` and/or `status`), with `pagination` {limit: 1, offset, hasNext, totalCount}. None there: ' +
          '404 DRIP-002. `versionId`: only the executions in that version of the drip’s workflow (a value ' +
          'that is not an id is ignored).',
        params: DripParams,
        querystring: ExecutionQuery,
        response: { 200: ExecutionResult, ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, contactId, status, versionId } = req.query;
      const r = await getExecution(app.ctx.db, req.params.accountId, req.params.dripCampaignId, {
        offset,
        contactId,
        status,
        versionId,
      });
      return { success: true as const, data: r.execution, pagination: r.pagination };
    },
  );

  app.put(
    `${one}/deactivate`,
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Deactivate a drip campaign',
        description:
          '`active` becomes false: no new entries, and every running execution ends as `stopped` (its pending ' +
          'messages are never sent). Activate again with `activate: true` (endpoint 15).',
        params: DripParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deactivateDrip(app.ctx.db, req.params.accountId, req.params.dripCampaignId, req.actor);
      return { success: true as const };
    },
  );

  app.put(
    `${one}/migrate`,
    {
      config: { scope: 'workflows:write' },
      schema: {
        tags,
        summary: 'Migrate a drip campaign to a workflow',
        description:
          'Builds the equivalent workflow (trigger node → wait/send-message chain → end; one version, active when ' +
          'the drip was), answers it, records its id as the drip’s `workflowId` and deactivates the drip (running ' +
          'executions end as `stopped`). A drip migrates once: again → 409 DRIP-003. Message media and maxDuration ' +
          'are not carried over.',
        params: DripParams,
        response: { 200: Envelope(Workflow), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(await migrateDrip(app.ctx.db, req.params.accountId, req.params.dripCampaignId, req.actor)),
  );
}
