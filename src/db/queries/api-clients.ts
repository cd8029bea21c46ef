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
}

export async function insertClient(
  db: Queryable,
  accountId: string,
  c: { id: string; name: string; secretHash: string; scopes: string[] },
): Promise<ApiClientRow> {
  const { rows } = await db.query<ApiClientRow>(
    `INSERT INTO api_clients (id, account_id, name, secret_hash, scopes)
     VALUES ($2, $1, $3, $4, $5) RETURNING *`,
    [accountId, c.id, c.name, c.secretHash, c.scopes],
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
