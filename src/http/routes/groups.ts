import { Type } from '@sinclair/typebox';
import { createGroup } from '../../domain/numbers/create-group.ts';
import { deleteGroup } from '../../domain/numbers/delete-group.ts';
import { getGroup } from '../../domain/numbers/get-group.ts';
import { listGroups } from '../../domain/numbers/list-groups.ts';
import { updateGroup } from '../../domain/numbers/update-group.ts';
import { Collection, Envelope, errorResponses, IdParam, PageQuery, Success } from '../../schemas/common.ts';
import { CreateGroupBody, Group, UpdateGroupBody } from '../../schemas/groups.ts';
import type { WithDailyCap } from '../../schemas/numbers.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const GroupsQuery = Type.Object({ ...PageQuery });

export async function groupRoutes(app: App) {
  app.post(
    '/v1/accounts/:accountId/groups',
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags: ['groups'],
        summary: 'Create a phone-number group',
        description:
          '`phoneNumbers` (or the published spelling `phoneNumbers?`): `{id}` objects or E.164 strings of numbers ' +
          'the account holds. `isDefault: true` makes it the account’s one default group. `dailyCap`: at most so many ' +
          'messages a day from the group’s numbers together (the account’s day, in its time zone; past it they wait ' +
          'for the next day, still queued; null or absent: no cap).',
        params: IdParam('accountId'),
        body: CreateGroupBody,
        response: { 201: Envelope(Group), ...errorResponses(409) },
      },
    },
    async (req, reply) => {
      reply.code(201);
      const body = req.body as WithDailyCap<typeof req.body>;
      return ok(await createGroup(app.ctx.db, req.params.accountId, body, req.actor));
    },
  );

  app.get(
    '/v1/accounts/:accountId/groups',
    {
      config: { scope: 'numbers:read' },
      schema: {
        tags: ['groups'],
        summary: 'List phone-number groups',
        params: IdParam('accountId'),
        querystring: GroupsQuery,
        response: { 200: Collection(Group), ...errorResponses() },
      },
    },
    async (req) => page(await listGroups(app.ctx.db, req.params.accountId, req.query), (g) => g),
  );

  app.get(
    '/v1/accounts/:accountId/groups/:groupId',
    {
      config: { scope: 'numbers:read' },
      schema: {
        tags: ['groups'],
        summary: 'Get a phone-number group',
        params: IdParam('accountId', 'groupId'),
        response: { 200: Envelope(Group), ...errorResponses() },
      },
    },
    async (req) => ok(await getGroup(app.ctx.db, req.params.accountId, req.params.groupId)),
  );

  app.put(
    '/v1/accounts/:accountId/groups/:groupId',
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags: ['groups'],
        summary: 'Update a phone-number group',
        description:
          'Absent fields stay as they are; `phoneNumbers` replaces the group’s numbers. The default group stops being ' +
          'the default only when another group is made the default (409 GRP-005). `dailyCap: null` removes the ' +
          'group’s daily cap.',
        params: IdParam('accountId', 'groupId'),
        body: UpdateGroupBody,
        response: { 200: Envelope(Group), ...errorResponses(409) },
      },
    },
    async (req) => {
      const body = req.body as WithDailyCap<typeof req.body>;
      return ok(await updateGroup(app.ctx.db, req.params.accountId, req.params.groupId, body, req.actor));
    },
  );

  app.delete(
    '/v1/accounts/:accountId/groups/:groupId',
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags: ['groups'],
        summary: 'Delete a phone-number group',
        description: 'Its numbers stay with the account. The default group cannot be deleted (409 GRP-002).',
        params: IdParam('accountId', 'groupId'),
        response: { 200: Success, ...errorResponses(409) },
      },
    },
    async (req) => {
      await deleteGroup(app.ctx.db, req.params.accountId, req.params.groupId);
      return { success: true as const };
    },
  );
}
