import type { Queryable } from '../client.ts';

/** An API client row as stored (the secret only as its hash). */
export interface ApiClientRow {
  id: string;
  account_id: string;
  name: string;
  secret_hash: string;
  scopes: string[];
  revoked_at: Date | null;
  created_at: Date;
  /** Who created it (and so was shown its secret); `{}` for clients created before this was recorded. */
  created_by: Record<string, unknown>;
  /** Why it was revoked: `creator-removed`, or null (revoked by hand, or not revoked). */
  revoked_reason: string | null;
}

export async function insertClient(
  db: Queryable,
  accountId: string,
  c: { id: string; name: string; secretHash: string; scopes: string[]; by?: object },
): Promise<ApiClientRow> {
  const { rows } = await db.query<ApiClientRow>(
    `INSERT INTO api_clients (id, account_id, name, secret_hash, scopes, created_by)
     VALUES ($2, $1, $3, $4, $5, $6) RETURNING *`,
    [accountId, c.id, c.name, c.secretHash, c.scopes, c.by ?? {}],
  );
  return rows[0];
}

/** Looks a client up by its id alone: the token endpoint does not know the account yet. */
export async function findClientById(db: Queryable, clientId: string): Promise<ApiClientRow | undefined> {
  const { rows } = await db.query<ApiClientRow>('SELECT * FROM api_clients WHERE id = $1', [clientId]);
  return rows[0];
}

export async function revokeClient(db: Queryable, clientId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE api_clients SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL',
    [clientId],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The account's clients a console user was shown the secret of: the ones they created, and the ones
 * created through those (a client with `clients:write` answers its new client's secret to whoever
 * holds its own), revoked or not.
 */
export async function clientsMadeBy(db: Queryable, accountId: string, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `WITH RECURSIVE made(id) AS (
       SELECT id FROM api_clients
        WHERE account_id = $1 AND created_by ->> 'source' = 'console' AND created_by ->> 'id' = $2
       UNION
       SELECT c.id FROM api_clients c JOIN made m ON c.created_by ->> 'source' = 'api' AND c.created_by ->> 'id' = m.id
        WHERE c.account_id = $1
     )
     SELECT id FROM made ORDER BY id`,
    [accountId, userId],
  );
  return rows.map((r) => r.id);
}

/** Revokes these clients of the account that are not revoked yet, with a reason; answers them. */
export async function revokeClientsFor(
  db: Queryable,
  accountId: string,
  ids: string[],
  reason: string,
): Promise<ApiClientRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ApiClientRow>(
    `UPDATE api_clients SET revoked_at = now(), revoked_reason = $3
      WHERE account_id = $1 AND id = ANY ($2::text[]) AND revoked_at IS NULL
      RETURNING *`,
    [accountId, ids, reason],
  );
  return rows.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || a.id.localeCompare(b.id));
}

/** Ids of every revoked client: the token service refreshes its revocation set from this. */
export async function revokedClientIds(db: Queryable): Promise<string[]> {
  // Console users removed from every account count as revoked too (their tokens name `user:<id>`).
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM api_clients WHERE revoked_at IS NOT NULL
     UNION ALL
     SELECT 'user:' || u.id FROM users u WHERE NOT EXISTS (SELECT 1 FROM account_users m WHERE m.user_id = u.id)`,
  );
  return rows.map((r) => r.id);
}

/** The account's clients, newest first (secrets never leave the table). */
export async function listClients(
  db: Queryable,
  accountId: string,
  offset: number,
  limit: number,
): Promise<{ rows: ApiClientRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db.query<ApiClientRow>(
      'SELECT * FROM api_clients WHERE account_id = $1 ORDER BY created_at DESC, id OFFSET $2 LIMIT $3',
      [accountId, offset, limit],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_clients WHERE account_id = $1', [accountId]),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
