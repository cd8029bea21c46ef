import type { Queryable } from '../client.ts';

/** A saved reply as stored (migration 0380): a named text the inbox inserts into a reply. */
export interface SavedReplyRow {
  account_id: string;
  id: string;
  name: string;
  text: string;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/**
 * How many saved replies the account has, counted under a transaction-scoped lock of the account's
 * saved replies (call it in the inserting transaction: two concurrent inserts cannot both pass a
 * bound on the count).
 */
export async function countSavedRepliesLocked(tx: Queryable, accountId: string): Promise<number> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('saved_replies:' || $1::text))`, [accountId]);
  const { rows } = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM saved_replies WHERE account_id = $1',
    [accountId],
  );
  return rows[0].n;
}

export async function insertSavedReply(
  db: Queryable,
  accountId: string,
  r: { id: string; name: string; text: string; by: object },
): Promise<SavedReplyRow> {
  const { rows } = await db.query<SavedReplyRow>(
    `INSERT INTO saved_replies (account_id, id, name, text, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $5) RETURNING *`,
    [accountId, r.id, r.name, r.text, r.by],
  );
  return rows[0];
}

/** Sets the given fields only; answers undefined when the account has no such saved reply. */
export async function updateSavedReply(
  db: Queryable,
  accountId: string,
  id: string,
  f: { name?: string; text?: string },
  by: object,
): Promise<SavedReplyRow | undefined> {
  const { rows } = await db.query<SavedReplyRow>(
    `UPDATE saved_replies SET name = coalesce($3, name), text = coalesce($4, text),
            updated_at = now(), updated_by = $5
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    [accountId, id, f.name ?? null, f.text ?? null, by],
  );
  return rows[0];
}

export async function findSavedReply(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SavedReplyRow | undefined> {
  const { rows } = await db.query<SavedReplyRow>(
    'SELECT * FROM saved_replies WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0];
}

export async function deleteSavedReply(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM saved_replies WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** One page of the account's saved replies by name (optionally by partial name, matched literally), with the total. */
export async function listSavedReplies(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: SavedReplyRow[]; total: number }> {
  const pattern = filter.name ? `%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%` : null;
  const where = `account_id = $1 AND ($2::text IS NULL OR name ILIKE $2 ESCAPE '\\')`;
  const [items, count] = await Promise.all([
    db.query<SavedReplyRow>(
      `SELECT * FROM saved_replies WHERE ${where} ORDER BY lower(name), id LIMIT $3 OFFSET $4`,
      [accountId, pattern, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM saved_replies WHERE ${where}`, [
      accountId,
      pattern,
    ]),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
