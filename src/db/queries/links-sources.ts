import type { Queryable } from '../client.ts';

/** Where a link was used: directly, or in the messages of a send job (of a campaign). */
export interface LinkSourceRow {
  account_id: string;
  link_id: string;
  id: string;
  key: string;
  type: 'direct' | 'job' | 'campaign';
  job_id: string | null;
  campaign_id: string | null;
  clicks: number;
  created_at: Date;
}

const SELECT = `SELECT s.*, coalesce((SELECT sum(c.clicks) FROM link_clicks c
    WHERE c.account_id = s.account_id AND c.source_id = s.id), 0)::int AS clicks
  FROM link_sources s`;

/**
 * The link's source for a send job, created with `key` when it has none yet. Answers undefined
 * when the key is taken by another source of the link (the caller draws another key).
 */
export async function findOrInsertJobSource(
  db: Queryable,
  accountId: string,
  s: { linkId: string; id: string; key: string; jobId: string; campaignId: string | null },
): Promise<{ id: string; key: string } | undefined> {
  const found = await db.query<{ id: string; key: string }>(
    'SELECT id, key FROM link_sources WHERE account_id = $1 AND link_id = $2 AND job_id = $3',
    [accountId, s.linkId, s.jobId],
  );
  if (found.rows[0]) return found.rows[0];
  const { rows } = await db.query<{ id: string; key: string }>(
    `INSERT INTO link_sources (account_id, link_id, id, key, type, job_id, campaign_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING id, key`,
    [accountId, s.linkId, s.id, s.key, s.campaignId ? 'campaign' : 'job', s.jobId, s.campaignId],
  );
  return rows[0];
}

/** One source of a link; `direct` names the link's direct source. */
export async function findLinkSource(
  db: Queryable,
  accountId: string,
  linkId: string,
  sourceId: string | 'direct',
): Promise<LinkSourceRow | undefined> {
  const byDirect = sourceId === 'direct';
  const { rows } = await db.query<LinkSourceRow>(
    `${SELECT} WHERE s.account_id = $1 AND s.link_id = $2 AND ${byDirect ? "s.key = ''" : 's.id = $3'}`,
    byDirect ? [accountId, linkId] : [accountId, linkId, sourceId],
  );
  return rows[0];
}

/** A page of a link's sources, oldest first (the direct source comes first), with the total. */
export async function listLinkSources(
  db: Queryable,
  accountId: string,
  linkId: string,
  page: { offset: number; limit: number },
): Promise<{ rows: LinkSourceRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db.query<LinkSourceRow>(
      `${SELECT} WHERE s.account_id = $1 AND s.link_id = $2 ORDER BY (s.key <> ''), s.created_at, s.id
       LIMIT $3 OFFSET $4`,
      [accountId, linkId, page.limit, page.offset],
    ),
    db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM link_sources WHERE account_id = $1 AND link_id = $2',
      [accountId, linkId],
    ),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

/**
 * Counts a click for today (UTC) on the link's source with this key, or on its direct source when
 * no source has the key.
 */
export async function recordClick(
  db: Queryable,
  accountId: string,
  linkId: string,
  key: string,
): Promise<void> {
  await db.query(
    `INSERT INTO link_clicks (account_id, link_id, source_id, day, clicks)
     SELECT $1, $2, s.id, (now() AT TIME ZONE 'UTC')::date, 1 FROM link_sources s
      WHERE s.account_id = $1 AND s.link_id = $2 AND s.key IN ($3, '')
      ORDER BY (s.key = '') LIMIT 1
     ON CONFLICT (account_id, source_id, day) DO UPDATE SET clicks = link_clicks.clicks + 1`,
    [accountId, linkId, key],
  );
}

/** Clicks of a source per UTC day from `start` to `end` (inclusive), every day listed, oldest first. */
export async function sourceDailyClicks(
  db: Queryable,
  accountId: string,
  sourceId: string,
  start: string,
  end: string,
): Promise<{ day: string; clicks: number }[]> {
  const { rows } = await db.query<{ day: string; clicks: number }>(
    `SELECT to_char(g.day, 'YYYY-MM-DD') AS day, coalesce(c.clicks, 0)::int AS clicks
       FROM generate_series($3::date, $4::date, interval '1 day') AS g(day)
       LEFT JOIN link_clicks c ON c.account_id = $1 AND c.source_id = $2 AND c.day = g.day::date
      ORDER BY g.day`,
    [accountId, sourceId, start, end],
  );
  return rows;
}
