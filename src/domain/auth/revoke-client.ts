import type { Db } from '../../db/client.ts';
import { revokeClient as revokeRow } from '../../db/queries/api-clients.ts';
import type { TokenService } from './tokens.ts';

/** Revokes a client: it can no longer get tokens, and the tokens it holds stop working. */
export async function revokeClient(db: Db, clientId: string, tokens?: TokenService): Promise<boolean> {
  const revoked = await revokeRow(db, clientId);
  tokens?.noteRevoked(clientId);
  return revoked;
}
