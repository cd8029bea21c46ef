import type { FastifyInstance, FastifyReply } from 'fastify';
import { renderMessagePage } from '../../domain/forms/hosted-page.ts';
import { followLink } from '../../domain/links/follow-link.ts';
import { sendPage } from '../page-headers.ts';

type ShortP = { Params: { slug: string; sourceKey?: string }; Querystring: { s?: unknown } };

function notFound(reply: FastifyReply) {
  return sendPage(
    reply,
    404,
    renderMessagePage('Link not found', 'This link does not exist or was removed.'),
  );
}

/**
 * Short-link redirects on the public listener (no bearer token): `/l/{slug}` (direct) and
 * `/l/{slug}/{sourceKey}` (or `?s={sourceKey}`) answer 302 to the link's stored URL and count a click.
 */
export async function shortLinkRoutes(app: FastifyInstance) {
  const handler = async (
    req: { params: ShortP['Params']; query: ShortP['Querystring'] },
    reply: FastifyReply,
  ) => {
    const key = req.params.sourceKey ?? (typeof req.query.s === 'string' ? req.query.s : undefined);
    const url = await followLink(app.ctx.db, req.params.slug, key);
    if (!url) return notFound(reply);
    // no-store: a cached redirect would skip the click count; no-referrer keeps the short URL private.
    return reply
      .code(302)
      .header('location', url)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send();
  };
  app.get<ShortP>('/l/:slug', handler);
  app.get<ShortP>('/l/:slug/:sourceKey', handler);
}
