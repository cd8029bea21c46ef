import { fail } from '../../errors.ts';
import type { ClientAuthenticator } from './client-authenticator.ts';
import type { TokenService } from './tokens.ts';

/** What the token endpoint was given, from whichever of body or Basic header carried it. */
export interface TokenRequest {
  grantType?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  /** The caller's address: failed attempts are limited per address as well as per client id. */
  ip: string;
}

/** Client-credentials grant (RFC 6749 §4.4): authenticates the client and issues a bearer token. */
export async function issueToken(
  clients: ClientAuthenticator,
  tokens: TokenService,
  ttlSeconds: number,
  req: TokenRequest,
) {
  if (!req.grantType) fail('invalid_request', 'grant_type is required.');
  if (req.grantType !== 'client_credentials') {
    fail('unsupported_grant_type', `grant_type "${req.grantType}" is not supported; use client_credentials.`);
  }
  if (!req.clientId || !req.clientSecret) fail('invalid_client', 'client_id and client_secret are required.');
  const client = await clients.authenticate(req.clientId, req.clientSecret, req.ip);

  let scopes = client.scopes;
  if (req.scope !== undefined && req.scope.trim() !== '') {
    const asked = req.scope.split(/\s+/).filter(Boolean);
    const unknown = asked.filter((s) => !client.scopes.includes(s));
    if (unknown.length) fail('invalid_scope', `Scope not granted to this client: ${unknown.join(' ')}`);
    scopes = asked;
  }
  const accessToken = await tokens.issue(
    { id: client.id, name: client.name, accountId: client.account_id },
    scopes,
  );
  return {
    access_token: accessToken,
    token_type: 'bearer' as const,
    expires_in: ttlSeconds,
    scope: scopes.join(' '),
  };
}
