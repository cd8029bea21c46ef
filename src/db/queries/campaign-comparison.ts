import type { Queryable } from '../client.ts';
import { ID_FLOOR } from './reports.ts';

/** One campaign's figures in a period, beside the others. */
export interface CampaignFigures {
  campaignId: string;
  /** Null when the campaign was deleted since (its messages remain). */
  name: string | null;
  /** Its first message in the period. */
  firstAt: Date;
  sent: number;
  delivered: number;
  failed: number;
  optedOut: number;
  replies: number;
  optOuts: number;
  clicks: number;
  spend: number;
}

/**
 * The campaigns with outgoing messages created in [from, to), latest first by their first message
 * of the period, a page of them with their figures and how many there are: the figures of the
 * campaign report (reports.ts, dailyFigures scoped to a campaign) in total over the period: its
 * messages by their status now, the replies and opt-outs of its recipients after their first
 * message of it, the clicks on links shortened in it. `tz` is the account's time zone (click days).
 */
export async function campaignComparison(
  db: Queryable,
  accountId: string,
  from: Date,
  to: Date,
  tz: string,
  page: { offset: number; limit: number },
): Promise<{ rows: CampaignFigures[]; total: number }> {
  const { rows } = await db.query<CampaignFigures & { total: number }>(
    `WITH out AS (
       SELECT m.campaign_id,
              min(m.created_at) AS first_at,
              count(*) FILTER (WHERE m.status IN ('sent', 'delivered', 'undelivered'))::int AS sent,
              count(*) FILTER (WHERE m.status = 'delivered')::int AS delivered,
              count(*) FILTER (WHERE m.status IN ('failed', 'undelivered')
                                 AND coalesce(m.error->>'code', '') <> 'CONT-010')::int AS failed,
              count(*) FILTER (WHERE m.status = 'failed' AND m.error->>'code' = 'CONT-010')::int AS opted_out,
              coalesce(sum(m.price), 0)::float8 AS spend
         FROM messages m
        WHERE m.account_id = $1 AND m.outgoing AND NOT m.system AND m.campaign_id IS NOT NULL
          AND m.id >= ${ID_FLOOR('$2')} AND m.id < ${ID_FLOOR('$3')}
          AND m.created_at >= $2 AND m.created_at < $3
        GROUP BY m.campaign_id
     ),
     page AS (
       SELECT out.*, count(*) OVER ()::int AS total FROM out
        ORDER BY out.first_at DESC, out.campaign_id DESC OFFSET $5 LIMIT $6
     ),
     recipients AS (
       -- Each recipient of each campaign with their first message of it: only what they did after
       -- it is the campaign's (as in its report).
       SELECT m.campaign_id, m.contact_id, min(m.created_at) AS first_at FROM messages m
        WHERE m.account_id = $1 AND m.outgoing AND m.contact_id IS NOT NULL AND m.status <> 'failed'
          AND m.campaign_id IN (SELECT campaign_id FROM page)
        GROUP BY 1, 2
     ),
     inb AS (
       SELECT r.campaign_id, count(*)::int AS replies
         FROM messages m JOIN recipients r ON r.contact_id = m.contact_id AND m.created_at > r.first_at
        WHERE m.account_id = $1 AND NOT m.outgoing
          AND m.id >= ${ID_FLOOR('$2')} AND m.id < ${ID_FLOOR('$3')}
          AND m.created_at >= $2 AND m.created_at < $3
        GROUP BY 1
     ),
     opt AS (
       SELECT r.campaign_id, count(*)::int AS opt_outs
         FROM events e JOIN recipients r
           ON r.contact_id = (e.data #>> '{contact,id}')::uuid AND e.created_at > r.first_at
        WHERE e.id >= ${ID_FLOOR('$2')} AND e.id < ${ID_FLOOR('$3')}
          AND e.account_id = $1 AND e.type = 'contact-opt-out'
          AND e.created_at >= $2 AND e.created_at < $3
        GROUP BY 1
     ),
     clk AS (
       SELECT s.campaign_id, sum(c.clicks)::int AS clicks
         FROM link_clicks c
         JOIN link_sources s ON s.account_id = c.account_id AND s.id = c.source_id
        WHERE c.account_id = $1 AND s.campaign_id IN (SELECT campaign_id FROM page)
          AND c.day >= ($2::timestamptz AT TIME ZONE $4)::date
          AND c.day <= (($3::timestamptz - interval '1 ms') AT TIME ZONE $4)::date
        GROUP BY 1
     )
     SELECT page.campaign_id AS "campaignId", cp.name, page.first_at AS "firstAt", page.total,
            page.sent, page.delivered, page.failed, page.opted_out AS "optedOut",
            coalesce(inb.replies, 0) AS replies, coalesce(opt.opt_outs, 0) AS "optOuts",
            coalesce(clk.clicks, 0) AS clicks, round(page.spend::numeric, 4)::float8 AS spend
       FROM page
       LEFT JOIN campaigns cp ON cp.account_id = $1 AND cp.id = page.campaign_id
       LEFT JOIN inb USING (campaign_id) LEFT JOIN opt USING (campaign_id) LEFT JOIN clk USING (campaign_id)
      ORDER BY page.first_at DESC, page.campaign_id DESC`,
    [accountId, from, to, tz, page.offset, page.limit],
  );
  if (rows.length > 0) return { rows: rows.map(({ total: _t, ...r }) => r), total: rows[0].total };
  if (page.offset === 0) return { rows: [], total: 0 };
  // A page past the end: count them all the same.
  const count = await db.query<{ n: number }>(
    `SELECT count(DISTINCT m.campaign_id)::int AS n FROM messages m
      WHERE m.account_id = $1 AND m.outgoing AND NOT m.system AND m.campaign_id IS NOT NULL
        AND m.id >= ${ID_FLOOR('$2')} AND m.id < ${ID_FLOOR('$3')}
        AND m.created_at >= $2 AND m.created_at < $3`,
    [accountId, from, to],
  );
  return { rows: [], total: count.rows[0].n };
}
