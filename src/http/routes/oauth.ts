import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { issueToken } from '../../domain/auth/issue-token.ts';
import { errorResponses } from '../schemas/common.ts';
import { TokenBody, TokenResponse } from '../schemas/oauth.ts';

function basicCredentials(header: string | undefined): { id?: string; secret?: string } {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m) return {};
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return {};
  // RFC 6749 §2.3.1: both parts are form-urlencoded before being joined.
  return { id: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
}

/** POST /oauth2/token: the client-credentials grant, JSON or form body, or HTTP Basic. */
export async function oauthRoutes(app: FastifyInstance) {
  app.post<{ Body: Static<typeof TokenBody> }>(
    '/oauth2/token',
    {
      schema: {
        tags: ['auth'],
        summary: 'Exchange client credentials for an access token',
        body: TokenBody,
        response: { 200: TokenResponse, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      let basic: { id?: string; secret?: string } = {};
      try {
        basic = basicCredentials(request.headers.authorization);
      } catch {
        basic = {};
      }
      const result = await issueToken(app.ctx.db, app.ctx.tokens, app.ctx.config.tokenTtlSeconds, {
        grantType: body.grant_type,
        clientId: basic.id ?? body.client_id,
        clientSecret: basic.secret ?? body.client_secret,
        scope: body.scope,
      });
      reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
      return result;
    },
  );
}
