import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitHeaders } from '../rate-limiter.ts';
import { sendError } from './errors.ts';

const REALM = 'Bearer realm="sparrow"';

/**
 * Bearer-token authentication (RFC 6750), account scope, scope checks and per-client rate limits,
 * for every route that declares `config.scope`.
 */
export function registerAuth(app: FastifyInstance) {
  app.decorateRequest('grant', undefined);
  app.decorateRequest('actor', undefined as unknown as FastifyRequest['actor']);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const scope = request.routeOptions.config?.scope;
    if (!scope) {
      if (request.url.startsWith('/oauth2/') || request.url.startsWith('/v1/oauth2/'))
        return limit(app, request, reply, `ip:${request.ip}`);
      return;
    }
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+([A-Za-z0-9\-_.~+/]+=*)\s*$/i.exec(header) : null;
    if (!header || !match) {
      reply.header('WWW-Authenticate', REALM);
      return sendError(reply, 'AUTH-001');
    }
    const grant = await app.ctx.tokens.verify(match[1]);
    if (!grant) {
      reply.header(
        'WWW-Authenticate',
        `${REALM}, error="invalid_token", error_description="The access token is invalid or expired"`,
      );
      return sendError(reply, 'AUTH-002');
    }
    request.grant = grant;
    // A console user's token names the person (audit stamps show who did it), a client's the client.
    request.actor = grant.clientId.startsWith('user:')
      ? {
          id: grant.clientId.slice(5),
          name: grant.clientName,
          firstName: grant.firstName,
          lastName: grant.lastName,
          email: grant.email,
          source: 'console',
        }
      : { id: grant.clientId, name: grant.clientName, source: 'api' };
    const rl = await limit(app, request, reply, `client:${grant.clientId}`);
    if (rl) return rl;
    const accountId = (request.params as { accountId?: string } | undefined)?.accountId;
    if (accountId !== undefined && !grant.accounts.includes(accountId)) {
      return sendError(reply, 'AUTH-003');
    }
    if (!grant.scopes.has(scope)) {
      reply.header('WWW-Authenticate', `${REALM}, error="insufficient_scope", scope="${scope}"`);
      return sendError(reply, 'AUTH-004', `The token lacks the scope "${scope}".`);
    }
  });
}

async function limit(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, key: string) {
  let hit: Awaited<ReturnType<typeof app.ctx.rateLimiter.hit>>;
  try {
    hit = await app.ctx.rateLimiter.hit(key);
  } catch (err) {
    // A rate-limit store outage must not take the API down with it.
    request.log.warn({ err }, 'rate limiter unavailable');
    return;
  }
  reply.headers(rateLimitHeaders(hit));
  if (!hit.allowed) {
    reply.header('Retry-After', String(hit.reset));
    return sendError(reply, 'RATE-001');
  }
}
