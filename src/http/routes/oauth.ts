import { issueToken } from '../../domain/auth/issue-token.ts';
import { errorResponses } from '../../schemas/common.ts';
import { TokenBody, TokenResponse } from '../../schemas/oauth.ts';
import type { App } from '../types.ts';

function basicCredentials(header: string | undefined): { id?: string; secret?: string } {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m) return {};
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return {};
  // RFC 6749 §2.3.1: both parts are form-urlencoded before being joined.
  return { id: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
}

/** Where the token endpoint answers: SDKs generated for the server `…/v1` post to the second. */
export const TOKEN_PATHS = ['/oauth2/token', '/v1/oauth2/token'] as const;

/** POST /oauth2/token (and /v1/oauth2/token): the client-credentials grant, JSON or form body, or HTTP Basic. */
export async function oauthRoutes(app: App) {
  for (const path of TOKEN_PATHS) {
    app.post(
      path,
      {
        schema: {
          tags: ['auth'],
          summary: 'Exchange client credentials for an access token',
          ...(path === '/v1/oauth2/token'
            ? {
                description:
                  'The same endpoint as `POST /oauth2/token`, for clients whose server URL ends in `/v1`.',
              }
            : {}),
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
        const result = await issueToken(app.ctx.clientAuth, app.ctx.tokens, app.ctx.config.tokenTtlSeconds, {
          grantType: body.grant_type,
          clientId: basic.id ?? body.client_id,
          clientSecret: basic.secret ?? body.client_secret,
          scope: body.scope,
          ip: request.ip,
        });
        reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
        return result;
      },
    );
  }
}
