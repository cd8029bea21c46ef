import type { Queryable } from '../client.ts';

/** A tracked link as stored, with its total clicks. */
export interface LinkRow {
  account_id: string;
  id: string;
  slug: string;
  url: string;
  name: string;
  clicks: number;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

const SELECT = `SELECT k.*, coalesce((SELECT sum(c.clicks) FROM link_clicks c
    WHERE c.account_id = k.account_id AND c.link_id = k.id), 0)::int AS clicks
  FROM links k`;

/**
 * Inserts a link with its direct source (key ''), unless the slug is taken (then answers false:
 * the caller draws another slug).
 */
export async function insertLink(
  db: Queryable,
  accountId: string,
  l: { id: string; slug: string; url: string; name: string; directSourceId: string; by: object },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH link AS (
       INSERT INTO links (account_id, id, slug, url, name, created_by, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (slug) DO NOTHING RETURNING account_id, id)
     INSERT INTO link_sources (account_id, link_id, id, key, type)
     SELECT account_id, id, $7, '', 'direct' FROM link`,
    [accountId, l.id, l.slug, l.url, l.name, l.by, l.directSourceId],
  );
  return (rowCount ?? 0) > 0;
}

/** One of the account's links with its total clicks. */
export async function findLink(db: Queryable, accountId: string, id: string): Promise<LinkRow | undefined> {
  const { rows } = await db.query<LinkRow>(`${SELECT} WHERE k.account_id = $1 AND k.id = $2`, [
    accountId,
    id,
  ]);
  return rows[0];
}

/** The account's oldest link to exactly this URL (shortening reuses it). */
export async function findLinkByUrl(
  db: Queryable,
  accountId: string,
  url: string,
): Promise<{ id: string; slug: string } | undefined> {
  const { rows } = await db.query<{ id: string; slug: string }>(
    `SELECT id, slug FROM links WHERE account_id = $1 AND md5(url) = md5($2) AND url = $2
     ORDER BY created_at, id LIMIT 1`,
    [accountId, url],
  );
  return rows[0];
}

/**
 * The link behind a short URL, by slug alone: the redirect path names no account, so this is the
 * one lookup across accounts (the slug is globally unique and unguessable).
 */
export async function findLinkBySlug(
  db: Queryable,
  slug: string,
): Promise<{ account_id: string; id: string; url: string } | undefined> {
  const { rows } = await db.query<{ account_id: string; id: string; url: string }>(
    'SELECT account_id, id, url FROM links WHERE slug = $1',
    [slug],
  );
  return rows[0];
}

/** Deletes a link (its sources and clicks cascade); false when there is none. */
export async function deleteLink(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM links WHERE account_id = $1 AND id = $2', [accountId, id]);
  return (rowCount ?? 0) > 0;
}

/** One page of the account's links, newest first (optionally by partial name or URL), with the total. */
export async function listLinks(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: LinkRow[]; total: number }> {
  const params: unknown[] = [accountId];
  let cond = 'k.account_id = $1';
  if (filter.name) {
    params.push(`%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    cond += ` AND (k.name ILIKE $${params.length} OR k.url ILIKE $${params.length})`;
  }
  const [items, count] = await Promise.all([
    db.query<LinkRow>(
      `${SELECT} WHERE ${cond} ORDER BY k.created_at DESC, k.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM links k WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
