import type { Db } from '../../db/client.ts';
import { type ApiClientRow, findClientById, listClients } from '../../db/queries/api-clients.ts';
import { fail } from '../../errors.ts';
import type { Scope } from '../../schemas/scopes.ts';
import type { Actor } from '../actor.ts';
import type { Page } from '../page.ts';
import { createClient } from './create-client.ts';
import { revokeClient } from './revoke-client.ts';
import type { TokenService } from './tokens.ts';

/** An API client as the API shows it: never its secret or the secret's hash. */
export function presentClient(c: ApiClientRow) {
  return {
    id: c.id,
    name: c.name,
    scopes: c.scopes,
    revoked: c.revoked_at !== null,
    ...(c.revoked_at ? { revokedAt: c.revoked_at.toISOString() } : {}),
    ...(c.revoked_reason ? { revokedReason: c.revoked_reason } : {}),
    ...(c.created_by && Object.keys(c.created_by).length > 0 ? { createdBy: c.created_by as Actor } : {}),
    created: c.created_at.toISOString(),
  };
}

export async function listAccountClients(
  db: Db,
  accountId: string,
  offset: number,
  limit: number,
): Promise<Page<ReturnType<typeof presentClient>>> {
  const { rows, total } = await listClients(db, accountId, offset, limit);
  return { items: rows.map(presentClient), totalCount: total, offset, limit };
}

/**
 * Creates a client of the account (the console's "API credentials"): its scopes default to the
 * caller's and can never exceed them (a token cannot mint a stronger one). The secret is in the
 * answer only; `by` is recorded as its creator (revoked with it when that person leaves).
 */
export async function createAccountClient(
  db: Db,
  accountId: string,
  input: { name: string; scopes?: Scope[]; hashCost?: number },
  callerScopes: Set<string>,
  by: Actor,
) {
  const wanted = input.scopes ?? [...callerScopes];
  const beyond = wanted.filter((s) => !callerScopes.has(s));
  if (beyond.length > 0)
    fail('AUTH-004', `A client cannot be given scopes the caller lacks: ${beyond.join(', ')}.`);
  const { client, secret } = await createClient(db, accountId, {
    name: input.name,
    scopes: wanted,
    by,
    hashCost: input.hashCost,
  });
  return { ...presentClient(client), secret };
}

/** Revokes a client of the account (CLIENT-001 when it is another account's or unknown). */
export async function revokeAccountClient(db: Db, tokens: TokenService, accountId: string, clientId: string) {
  const client = await findClientById(db, clientId);
  if (!client || client.account_id !== accountId) fail('CLIENT-001');
  await revokeClient(db, clientId, tokens);
  return presentClient((await findClientById(db, clientId))!);
}
