/** SQL of routes (migration 0290): an account's routes and the operator's default table (account NULL). */
import type { Queryable } from '../client.ts';

/** A route as stored. */
export interface RouteRow {
  id: string;
  account_id: string | null;
  prefix: string | null;
  country: string | null;
  providers: { provider: string; priority: number; weight: number }[];
  description: string | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** What a route is made of. */
export interface RouteFields {
  prefix: string | null;
  country: string | null;
  providers: { provider: string; priority: number; weight: number }[];
  description: string | null;
}

/** Inserts a route (accountId null: a default route); answers undefined when the destination already has one. */
export async function insertRoute(
  db: Queryable,
  accountId: string | null,
  r: RouteFields & { id: string; by: object },
): Promise<RouteRow | undefined> {
  const { rows } = await db.query<RouteRow>(
    `INSERT INTO routes (id, account_id, prefix, country, providers, description, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT DO NOTHING RETURNING *`,
    [r.id, accountId, r.prefix, r.country, JSON.stringify(r.providers), r.description, JSON.stringify(r.by)],
  );
  return rows[0];
}

/** Replaces a route's fields; answers undefined when there is no such route, 'taken' when another route has the destination. */
export async function updateRoute(
  db: Queryable,
  accountId: string | null,
  id: string,
  r: RouteFields & { by: object },
): Promise<RouteRow | undefined | 'taken'> {
  try {
    const { rows } = await db.query<RouteRow>(
      `UPDATE routes SET prefix = $3, country = $4, providers = $5, description = $6, updated_by = $7, updated_at = now()
       WHERE account_id IS NOT DISTINCT FROM $1::uuid AND id = $2 RETURNING *`,
      [accountId, id, r.prefix, r.country, JSON.stringify(r.providers), r.description, JSON.stringify(r.by)],
    );
    return rows[0];
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return 'taken';
    throw err;
  }
}

/** A page of an account's routes (null: the default table), oldest first. */
export async function listRoutes(
  db: Queryable,
  accountId: string | null,
  offset: number,
  limit: number,
): Promise<{ rows: RouteRow[]; total: number }> {
  const [{ rows }, count] = await Promise.all([
    db.query<RouteRow>(
      `SELECT * FROM routes WHERE account_id IS NOT DISTINCT FROM $1::uuid ORDER BY created_at, id OFFSET $2 LIMIT $3`,
      [accountId, offset, limit],
    ),
    db.query<{ n: string }>(
      'SELECT count(*) AS n FROM routes WHERE account_id IS NOT DISTINCT FROM $1::uuid',
      [accountId],
    ),
  ]);
  return { rows, total: Number(count.rows[0].n) };
}

export async function getRoute(
  db: Queryable,
  accountId: string | null,
  id: string,
): Promise<RouteRow | undefined> {
  const { rows } = await db.query<RouteRow>(
    'SELECT * FROM routes WHERE account_id IS NOT DISTINCT FROM $1::uuid AND id = $2',
    [accountId, id],
  );
  return rows[0];
}

export async function deleteRoute(db: Queryable, accountId: string | null, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM routes WHERE account_id IS NOT DISTINCT FROM $1::uuid AND id = $2',
    [accountId, id],
  );
  return (rowCount ?? 0) > 0;
}

/** The routes the dispatcher may apply to these accounts' messages: theirs and the default table. */
export async function routesForAccounts(
  db: Queryable,
  accountIds: string[],
): Promise<Pick<RouteRow, 'id' | 'account_id' | 'prefix' | 'country' | 'providers'>[]> {
  const { rows } = await db.query<Pick<RouteRow, 'id' | 'account_id' | 'prefix' | 'country' | 'providers'>>({
    name: 'routes-for-accounts',
    text: `SELECT id, account_id, prefix, country, providers FROM routes
           WHERE account_id IS NULL OR account_id = ANY($1::uuid[])`,
    values: [accountIds],
  });
  return rows;
}
