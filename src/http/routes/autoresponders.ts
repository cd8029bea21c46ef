import { createAutoresponder } from '../../domain/autoresponders/create-autoresponder.ts';
import { deleteAutoresponder } from '../../domain/autoresponders/delete-autoresponder.ts';
import { getAutoresponder } from '../../domain/autoresponders/get-autoresponder.ts';
import { listAutoresponders } from '../../domain/autoresponders/list-autoresponders.ts';
import { updateAutoresponder } from '../../domain/autoresponders/update-autoresponder.ts';
import {
  Autoresponder,
  AutoresponderListQuery,
  AutoresponderParams,
  CreateAutoresponderBody,
  UpdateAutoresponderBody,
} from '../../schemas/autoresponders.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['autoresponders'];

export async function autoresponderRoutes(app: App) {
  const base = '/v1/accounts/:accountId/autoresponders';

  app.get(
    base,
    {
      config: { scope: 'autoresponders:read' },
      schema: {
        tags,
        summary: 'List autoresponders',
        description: 'Newest first; `groupId` and `active` filter.',
        params: IdParam('accountId'),
        querystring: AutoresponderListQuery,
        response: { 200: Collection(Autoresponder), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, groupId, active } = req.query;
      return page(
        await listAutoresponders(app.ctx.db, req.params.accountId, { groupId, active }, { offset, limit }),
        (a) => a,
      );
    },
  );

  app.post(
    base,
    {
      config: { scope: 'autoresponders:write' },
      schema: {
        tags,
        summary: 'Create an autoresponder',
        description:
          'Answers inbound texts that contain a keyword, or that arrive outside the group’s office hours ' +
          '(docs/autoresponders.md). A keyword trigger needs keywords (AUTO-002; an invalid keyword is AUTO-003); ' +
          'an `outsideOfficeHours` trigger needs a group with active office hours (AUTO-002). Another account’s ' +
          'group → 404 GRP-001. At most 100 per account (409 AUTO-004).',
        params: IdParam('accountId'),
        body: CreateAutoresponderBody,
        response: { 201: Envelope(Autoresponder), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await createAutoresponder(
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
    `${base}/:autoresponderId`,
    {
      config: { scope: 'autoresponders:read' },
      schema: {
        tags,
        summary: 'Get an autoresponder',
        params: AutoresponderParams,
        response: { 200: Envelope(Autoresponder), ...errorResponses() },
      },
    },
    async (req) => ok(await getAutoresponder(app.ctx.db, req.params.accountId, req.params.autoresponderId)),
  );

  app.put(
    `${base}/:autoresponderId`,
    {
      config: { scope: 'autoresponders:write' },
      schema: {
        tags,
        summary: 'Update an autoresponder',
        description:
          'Updates the given fields only (`trigger` and `message` are replaced whole; `group: null` answers for ' +
          'every number); `{"active": false}` turns it off. Stats are kept.',
        params: AutoresponderParams,
        body: UpdateAutoresponderBody,
        response: { 200: Envelope(Autoresponder), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await updateAutoresponder(
          app.ctx.db,
          req.params.accountId,
          req.params.autoresponderId,
          req.body,
          req.actor,
          app.ctx.config.externalsUrl,
        ),
      ),
  );

  app.delete(
    `${base}/:autoresponderId`,
    {
      config: { scope: 'autoresponders:write' },
      schema: {
        tags,
        summary: 'Delete an autoresponder',
        params: AutoresponderParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteAutoresponder(app.ctx.db, req.params.accountId, req.params.autoresponderId);
      return { success: true as const };
    },
  );
}
