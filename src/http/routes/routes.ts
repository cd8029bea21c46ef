import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { listProviders } from '../../domain/routes/list-providers.ts';
import { createRoute, deleteRoute, getRoute, listRoutes, replaceRoute } from '../../domain/routes/routes.ts';
import { Collection, Envelope, errorResponses, IdParam, PageQuery } from '../../schemas/common.ts';
import { ProviderChoice, Route, RouteBody } from '../../schemas/routes.ts';
import { ok, page } from '../respond.ts';

type Account = { accountId: string };
type Paged = { offset: number; limit: number };
type One = Account & { routeId: string };
const tags = ['routes'];

const ROUTE_DESCRIPTION =
  'Which providers carry a destination (docs/routing.md): `prefix` (E.164 digits, the longest wins) or `country` ' +
  '(ISO alpha-2), or neither for every destination. `providers` are tried by `priority` (lower first); within a ' +
  'priority each message draws its first provider by `weight`. A message whose provider refuses it with a retryable ' +
  'error, or whose link is down, moves to the next provider at once under the same message id; after an attempt of ' +
  'unknown fate (no answer) it stays with that provider, so it is never sent twice. Destinations no route of the ' +
  "account matches follow the operator's default routes, then the sending number's provider.";

/**
 * Routes: which providers carry which destinations, and where a message goes when one fails; and
 * the provider instances a route may name.
 */
export async function routeRoutes(app: FastifyInstance) {
  const base = '/v1/accounts/:accountId/routes';

  app.post<{ Params: Account; Body: typeof RouteBody.static }>(
    base,
    {
      config: { scope: 'routes:write' },
      schema: {
        tags,
        summary: 'Create a route',
        description: `${ROUTE_DESCRIPTION} One route per destination (ROUTE-002).`,
        params: IdParam('accountId'),
        body: RouteBody,
        response: { 201: Envelope(Route), ...errorResponses(409) },
      },
    },
    async (req, reply) =>
      reply.code(201).send(ok(await createRoute(app.ctx.db, req.params.accountId, req.body, req.actor))),
  );

  app.get<{ Params: Account; Querystring: Paged }>(
    base,
    {
      config: { scope: 'routes:read' },
      schema: {
        tags,
        summary: 'List routes',
        description: "The account's own routes, oldest first (the operator's default routes are not listed).",
        params: IdParam('accountId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(Route), ...errorResponses() },
      },
    },
    async (req) =>
      page(await listRoutes(app.ctx.db, req.params.accountId, req.query.offset, req.query.limit), (r) => r),
  );

  app.get<{ Params: Account; Querystring: Paged }>(
    '/v1/accounts/:accountId/providers',
    {
      config: { scope: 'routes:read' },
      schema: {
        tags,
        summary: 'List provider instances',
        description:
          'The provider instances a route may name on this server (docs/routing.md, "Provider instances"): ' +
          'exactly those this process has, in order: `simulator` (always there, in production too), `twilio` ' +
          'when TWILIO_ACCOUNT_SID is set, `smpp` when SMPP_URL is set, then each instance of the PROVIDERS ' +
          "setting as listed. The same for every account (they are the operator's). Each shows its name, kind " +
          'and whether it is built in; never its URL, host or credentials. A route may still name an instance ' +
          'not listed here (a carrier not set up yet): the dispatcher passes it over.',
        params: IdParam('accountId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(ProviderChoice), ...errorResponses() },
      },
    },
    async (req) => page(listProviders(app.ctx.providers, req.query), (p) => p),
  );

  app.get<{ Params: One }>(
    `${base}/:routeId`,
    {
      config: { scope: 'routes:read' },
      schema: {
        tags,
        summary: 'Get a route',
        params: IdParam('accountId', 'routeId'),
        response: { 200: Envelope(Route), ...errorResponses() },
      },
    },
    async (req) => ok(await getRoute(app.ctx.db, req.params.accountId, req.params.routeId)),
  );

  app.put<{ Params: One; Body: typeof RouteBody.static }>(
    `${base}/:routeId`,
    {
      config: { scope: 'routes:write' },
      schema: {
        tags,
        summary: 'Replace a route',
        description: 'The route is replaced whole; messages claimed from now on follow it.',
        params: IdParam('accountId', 'routeId'),
        body: RouteBody,
        response: { 200: Envelope(Route), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(await replaceRoute(app.ctx.db, req.params.accountId, req.params.routeId, req.body, req.actor)),
  );

  app.delete<{ Params: One }>(
    `${base}/:routeId`,
    {
      config: { scope: 'routes:write' },
      schema: {
        tags,
        summary: 'Delete a route',
        params: IdParam('accountId', 'routeId'),
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses() },
      },
    },
    async (req, reply) => {
      await deleteRoute(app.ctx.db, req.params.accountId, req.params.routeId);
      return reply.code(204).send();
    },
  );
}
