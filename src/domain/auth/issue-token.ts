import type { Db } from '../../db/client.ts';
import { findClientById } from '../../db/queries/api-clients.ts';
import { fail } from '../../errors.ts';
import { verifySecret } from './secrets.ts';
import type { TokenService } from './tokens.ts';

/** What the token endpoint was given, from whichever of body or Basic header carried it. */
export interface TokenRequest {
  grantType?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
}

// A dummy hash so an unknown client id costs the same time as a wrong secret.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** Client-credentials grant (RFC 6749 §4.4): authenticates the client and issues a bearer token. */
export async function issueToken(db: Db, tokens: TokenService, ttlSeconds: number, req: TokenRequest) {
  if (!req.grantType) fail('invalid_request', 'grant_type is required.');
  if (req.grantType !== 'client_credentials') {
    fail('unsupported_grant_type', `grant_type "${req.grantType}" is not supported; use client_credentials.`);
  }
  if (!req.clientId || !req.clientSecret) fail('invalid_client', 'client_id and client_secret are required.');
  const client = await findClientById(db, req.clientId);
  const secretOk = await verifySecret(req.clientSecret, client?.secret_hash ?? DUMMY_HASH);
  if (!client || !secretOk || client.revoked_at) fail('invalid_client');

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
  return { access_token: accessToken, token_type: 'Bearer', expires_in: ttlSeconds, scope: scopes.join(' ') };
}
