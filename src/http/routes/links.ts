import { Type } from '@sinclair/typebox';
import { createLink } from '../../domain/links/create-link.ts';
import { deleteLink } from '../../domain/links/delete-link.ts';
import { getLink } from '../../domain/links/get-link.ts';
import { linkSourceStats } from '../../domain/links/link-source-stats.ts';
import { listLinkSources } from '../../domain/links/list-link-sources.ts';
import { listLinks } from '../../domain/links/list-links.ts';
import { Collection, Envelope, errorResponses, IdParam, PageQuery, Success } from '../../schemas/common.ts';
import {
  CreateLinkBody,
  Link,
  LinkListQuery,
  LinkParams,
  LinkSource,
  LinkSourceParams,
  LinkSourceStatistic,
  StatsQuery,
} from '../../schemas/links.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['links'];
const read = { scope: 'links:read' as const };
const write = { scope: 'links:write' as const };
const SourcesQuery = Type.Object(PageQuery);

/** Tracked links: short URLs on the public listener, their sources and clicks per day. */
export async function linkRoutes(app: App) {
  const base = '/v1/accounts/:accountId/links';
  const ext = () => app.ctx.config.externalsUrl;

  app.post(
    base,
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a tracked link',
        description:
          'A short URL `{EXTERNALS_URL}/l/{slug}` (random, unguessable slug) that redirects to `url` and counts ' +
          'clicks. Only absolute http/https URLs (400 LINK-003).',
        params: IdParam('accountId'),
        body: CreateLinkBody,
        response: { 201: Envelope(Link), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(ok(await createLink(app.ctx.db, req.params.accountId, req.body, req.actor, ext()))),
  );

  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        summary: 'List tracked links',
        description:
          'Newest first, with total clicks; `name` matches name or URL (partial, case-insensitive).',
        params: IdParam('accountId'),
        querystring: LinkListQuery,
        response: { 200: Collection(Link), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(
        await listLinks(app.ctx.db, req.params.accountId, { name }, { offset, limit }, ext()),
        (l) => l,
      );
    },
  );

  app.get(
    `${base}/:linkId`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a tracked link',
        params: LinkParams,
        response: { 200: Envelope(Link), ...errorResponses() },
      },
    },
    async (req) => ok(await getLink(app.ctx.db, req.params.accountId, req.params.linkId, ext())),
  );

  app.delete(
    `${base}/:linkId`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a tracked link',
        description:
          'With its sources and clicks; its short URLs answer 404 from then on, also in texts already sent.',
        params: LinkParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteLink(app.ctx.db, req.params.accountId, req.params.linkId);
      return { success: true as const };
    },
  );

  app.get(
    `${base}/:linkId/sources`,
    {
      config: read,
      schema: {
        tags,
        summary: 'List the sources of a link',
        description:
          'Where the link was used: `direct` (its own short URL) first, then each send job whose texts carried it ' +
          '(`POST …/messages` with `shortenLinks: true`), each with its short URL and clicks.',
        params: LinkParams,
        querystring: SourcesQuery,
        response: { 200: Collection(LinkSource), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit } = req.query;
      return page(
        await listLinkSources(app.ctx.db, req.params.accountId, req.params.linkId, { offset, limit }, ext()),
        (s) => s,
      );
    },
  );

  app.get(
    `${base}/:linkId/sources/:sourceId/stats`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Clicks per day of a link source',
        description:
          'One `{date, value}` per UTC day from `start` to `end` (inclusive, at most 366 days), oldest first, ' +
          'days without clicks included. `sourceId` may be `direct`.',
        params: LinkSourceParams,
        querystring: StatsQuery,
        response: { 200: Collection(LinkSourceStatistic), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, start, end } = req.query;
      const { accountId, linkId, sourceId } = req.params;
      return page(
        await linkSourceStats(app.ctx.db, accountId, linkId, sourceId, { start, end }, { offset, limit }),
        (s) => s,
      );
    },
  );
}
