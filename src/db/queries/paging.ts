import type { Queryable } from '../client.ts';

/** Tables whose rows are listed by `listByName`: each has account_id, name, created_at and id. */
type NamedTable = 'drip_campaigns' | 'meeting_events' | 'templates' | 'workflows';

/**
 * One page of the account's rows of `table`, newest first (optionally by partial name, matched
 * literally), with the total over the same condition.
 */
export async function listByName<Row extends object>(
  db: Queryable,
  table: NamedTable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
  /** A fixed SQL condition on the table's own columns (no parameters). */
  where?: string,
): Promise<{ rows: Row[]; total: number }> {
  const params: unknown[] = [accountId];
  let cond = where ? `account_id = $1 AND ${where}` : 'account_id = $1';
  if (filter.name) {
    // The name is matched literally: escape LIKE's wildcards and its escape character.
    params.push(`%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    cond += ` AND name ILIKE $${params.length}`;
  }
  const [items, count] = await Promise.all([
    db.query<Row>(
      `SELECT * FROM ${table} WHERE ${cond} ORDER BY created_at DESC, id DESC
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
