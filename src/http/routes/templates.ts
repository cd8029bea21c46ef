import { createTemplate } from '../../domain/templates/create-template.ts';
import { deleteTemplate } from '../../domain/templates/delete-template.ts';
import { getTemplate } from '../../domain/templates/get-template.ts';
import { listTemplates } from '../../domain/templates/list-templates.ts';
import { updateTemplate } from '../../domain/templates/update-template.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  CreateTemplateBody,
  Template,
  TemplateListQuery,
  TemplateParams,
  UpdateTemplateBody,
} from '../../schemas/templates.ts';
import { createdCollection, ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['templates'];

export async function templateRoutes(app: App) {
  const base = '/v1/accounts/:accountId/templates';

  app.get(
    base,
    {
      config: { scope: 'templates:read' },
      schema: {
        tags,
        summary: 'List message templates',
        description: 'Newest first; `name` filters by partial, case-insensitive match.',
        params: IdParam('accountId'),
        querystring: TemplateListQuery,
        response: { 200: Collection(Template), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(
        await listTemplates(app.ctx.db, req.params.accountId, { name }, { offset, limit }),
        (t) => t,
      );
    },
  );

  app.post(
    base,
    {
      config: { scope: 'templates:write' },
      schema: {
        tags,
        summary: 'Create a message template',
        description:
          '`type` defaults to `SMS`. Names need not be unique: the id identifies a template. Answered 201 with ' +
          '`data` an array of the one template created (the published collection shape).',
        params: IdParam('accountId'),
        body: CreateTemplateBody,
        response: { 201: Collection(Template), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          createdCollection(
            await createTemplate(
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
    `${base}/:templateId`,
    {
      config: { scope: 'templates:read' },
      schema: {
        tags,
        summary: 'Get a message template',
        params: TemplateParams,
        response: { 200: Envelope(Template), ...errorResponses() },
      },
    },
    async (req) => ok(await getTemplate(app.ctx.db, req.params.accountId, req.params.templateId)),
  );

  app.put(
    `${base}/:templateId`,
    {
      config: { scope: 'templates:write' },
      schema: {
        tags,
        summary: 'Update a message template',
        description: 'Updates the given fields only; `media` replaces the whole list.',
        params: TemplateParams,
        body: UpdateTemplateBody,
        response: { 200: Envelope(Template), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await updateTemplate(
          app.ctx.db,
          req.params.accountId,
          req.params.templateId,
          req.body,
          req.actor,
          app.ctx.config.externalsUrl,
        ),
      ),
  );

  app.delete(
    `${base}/:templateId`,
    {
      config: { scope: 'templates:write' },
      schema: {
        tags,
        summary: 'Delete a message template',
        params: TemplateParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteTemplate(app.ctx.db, req.params.accountId, req.params.templateId);
      return { success: true as const };
    },
  );
}
