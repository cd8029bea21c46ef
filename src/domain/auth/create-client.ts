import type { Db } from '../../db/client.ts';
import { findClientById, insertClient } from '../../db/queries/api-clients.ts';
import { SCOPES } from '../../schemas/scopes.ts';
import { randomToken } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { hashSecret, verifySecret } from './secrets.ts';

/**
 * Creates an API client for an account and answers its secret, which is stored only as a hash
 * and never shown again (`by`, who is answered it, is recorded: when they leave the account the
 * client is revoked). With an explicit id and secret (bootstrap) it is idempotent. `hashCost`:
 * config.secretHashCost (the default's when not given).
 */
export async function createClient(
  db: Db,
  accountId: string,
  input: {
    id?: string;
    secret?: string;
    name?: string;
    scopes?: string[];
    by?: Actor;
    hashCost?: number;
  } = {},
) {
  const id = input.id ?? `cl_${randomToken(12)}`;
  const secret = input.secret ?? `cs_${randomToken(32)}`;
  if (input.id) {
    const existing = await findClientById(db, input.id);
    if (existing) {
      if (existing.account_id !== accountId) throw new Error(`client ${input.id} belongs to another account`);
      if (!(await verifySecret(secret, existing.secret_hash))) {
        throw new Error(`client ${input.id} exists with a different secret`);
      }
      return { client: existing, secret, created: false };
    }
  }
  const client = await insertClient(db, accountId, {
    id,
    name: input.name ?? 'API client',
    secretHash: await hashSecret(secret, input.hashCost),
    scopes: input.scopes ?? [...SCOPES],
    by: input.by,
  });
  return { client, secret, created: true };
}
