import type { Queryable } from '../client.ts';

/**
 * Which messages a report counts: the account's, or one campaign's, one send job's, one drip's or
 * one workflow's (the messages its runs' send-message steps queued, as workflow_steps recorded them).
 */
export interface ReportScope {
  campaignId?: string;
  jobId?: string;
  dripId?: string;
  workflowId?: string;
}

/**
 * The ids (and recipients) of the messages a drip's or a workflow's runs sent: the `messageId` a
 * send-message step recorded. A drip's workflow has the drip's id; once a drip was handed over to
 * a workflow (endpoint 18, `migrated_at`) runs entered later are the workflow's, not the drip's.
 * `$acc` is the account, `$drip` / `$wf` the drip's or the workflow's id (at most one not null).
 */
const AUTOMATION_MESSAGES = (acc: string, drip: string, wf: string) =>
  `SELECT (s.outcome ->> 'messageId')::uuid AS id, r.contact_id
     FROM workflow_runs r
     JOIN workflow_steps s ON s.account_id = r.account_id AND s.run_id = r.id
     LEFT JOIN drip_campaigns d ON d.account_id = r.account_id AND d.id = r.workflow_id
    WHERE r.account_id = ${acc} AND r.workflow_id = coalesce(${drip}::uuid, ${wf}::uuid)
      AND s.outcome ? 'messageId'
      AND CASE WHEN ${drip}::uuid IS NOT NULL
               THEN d.id IS NOT NULL AND (d.migrated_at IS NULL OR r.entered_at <= d.migrated_at)
               ELSE d.id IS NULL OR (d.migrated_at IS NOT NULL AND r.entered_at > d.migrated_at) END`;

/** The SQL condition on messages `m` of a scope with the params $campaign, $job, $drip, $wf. */
const IN_SCOPE = (acc: string, campaign: string, job: string, drip: string, wf: string) =>
  `(${campaign}::uuid IS NULL OR m.campaign_id = ${campaign}) AND (${job}::uuid IS NULL OR m.job_id = ${job})
   AND (coalesce(${drip}::uuid, ${wf}::uuid) IS NULL OR m.id IN (SELECT id FROM (${AUTOMATION_MESSAGES(acc, drip, wf)}) am))`;

export interface DayFigures {
  day: string;
  sent: number;
  delivered: number;
  failed: number;
  /** Messages not sent because the recipient had opted out or is blocked (CONT-010): not in `failed`. */
  optedOut: number;
  replies: number;
  optOuts: number;
  clicks: number;
  spend: number;
}

// Ids are UUIDv7: their first 48 bits are the creation time in ms, so a time range is an id range
// on the primary key (account_id, id) — no index on created_at needed for the account's messages.
export const ID_FLOOR = (param: string) =>
  `(lpad(to_hex((extract(epoch FROM ${param}::timestamptz) * 1000)::bigint), 12, '0') || '00000000000000000000')::uuid`;

/**
 * Figures per day (in the account's time zone) from `from` (inclusive) to `to` (exclusive):
 * outgoing messages created that day by their status now (sent = handed to a carrier: sent,
 * delivered or undelivered; failed without those not sent to opted-out or blocked recipients,
 * counted apart as optedOut), their price, inbound replies, opt-outs and tracked-link clicks.
 * Scoped to a campaign, a job, a drip or a workflow, replies and opt-outs are those of the
 * recipients of its messages after their first message of it (not before the send); clicks are those of the links shortened in a campaign's or a job's
 * texts (a drip's or a workflow's texts carry no link source of their own: no clicks counted).
 */
export async function dailyFigures(
  db: Queryable,
  accountId: string,
  from: Date,
  to: Date,
  timeZone: string,
  scope: ReportScope,
): Promise<DayFigures[]> {
  const automation = scope.dripId !== undefined || scope.workflowId !== undefined;
  const scoped = scope.campaignId !== undefined || scope.jobId !== undefined || automation;
  const { rows } = await db.query<DayFigures>(
    `WITH days AS (
       SELECT d::date AS day
         FROM generate_series(($2::timestamptz AT TIME ZONE $4)::date, (($3::timestamptz - interval '1 ms') AT TIME ZONE $4)::date, interval '1 day') d
     ),
     out AS (
       SELECT (m.created_at AT TIME ZONE $4)::date AS day,
              count(*) FILTER (WHERE m.status IN ('sent', 'delivered', 'undelivered'))::int AS sent,
              count(*) FILTER (WHERE m.status = 'delivered')::int AS delivered,
              count(*) FILTER (WHERE m.status IN ('failed', 'undelivered')
                                 AND coalesce(m.error->>'code', '') <> 'CONT-010')::int AS failed,
              count(*) FILTER (WHERE m.status = 'failed' AND m.error->>'code' = 'CONT-010')::int AS opted_out,
              coalesce(sum(m.price), 0)::float8 AS spend
         FROM messages m
        WHERE m.account_id = $1 AND m.outgoing AND NOT m.system
          AND m.id >= ${ID_FLOOR('$2')} AND m.id < ${ID_FLOOR('$3')}
          AND m.created_at >= $2 AND m.created_at < $3
          AND ${IN_SCOPE('$1', '$5', '$6', '$8', '$9')}
        GROUP BY 1
     ),
     recipients AS (
       -- Each recipient with the time of their first message in scope: only what they did after
       -- it (a reply, an opt-out) is credited to the campaign, send or automation.
       SELECT m.contact_id, min(m.created_at) AS first_at FROM messages m
        WHERE $7 AND m.account_id = $1 AND m.outgoing AND m.contact_id IS NOT NULL
          AND m.status <> 'failed'
          AND ${IN_SCOPE('$1', '$5', '$6', '$8', '$9')}
        GROUP BY m.contact_id
     ),
     inb AS (
       SELECT (m.created_at AT TIME ZONE $4)::date AS day, count(*)::int AS replies
         FROM messages m
        WHERE m.account_id = $1 AND NOT m.outgoing
          AND m.id >= ${ID_FLOOR('$2')} AND m.id < ${ID_FLOOR('$3')}
          AND m.created_at >= $2 AND m.created_at < $3
          AND (NOT $7 OR EXISTS (SELECT 1 FROM recipients r
                                  WHERE r.contact_id = m.contact_id AND m.created_at > r.first_at))
        GROUP BY 1
     ),
     opt AS (
       SELECT (e.created_at AT TIME ZONE $4)::date AS day, count(*)::int AS opt_outs
         FROM events e
        WHERE e.id >= ${ID_FLOOR('$2')} AND e.id < ${ID_FLOOR('$3')}
          AND e.account_id = $1 AND e.type = 'contact-opt-out'
          AND e.created_at >= $2 AND e.created_at < $3
          AND (NOT $7 OR EXISTS (SELECT 1 FROM recipients r
                                  WHERE r.contact_id = (e.data #>> '{contact,id}')::uuid AND e.created_at > r.first_at))
        GROUP BY 1
     ),
     clk AS (
       SELECT c.day, sum(c.clicks)::int AS clicks
         FROM link_clicks c
         LEFT JOIN link_sources s ON s.account_id = c.account_id AND s.id = c.source_id
        WHERE c.account_id = $1 AND NOT $10
          AND c.day >= ($2::timestamptz AT TIME ZONE $4)::date AND c.day <= (($3::timestamptz - interval '1 ms') AT TIME ZONE $4)::date
          AND ($5::uuid IS NULL OR s.campaign_id = $5) AND ($6::uuid IS NULL OR s.job_id = $6)
        GROUP BY 1
     )
     SELECT to_char(days.day, 'YYYY-MM-DD') AS day,
            coalesce(out.sent, 0) AS sent, coalesce(out.delivered, 0) AS delivered, coalesce(out.failed, 0) AS failed,
            coalesce(out.opted_out, 0) AS "optedOut",
            coalesce(inb.replies, 0) AS replies, coalesce(opt.opt_outs, 0) AS "optOuts", coalesce(clk.clicks, 0) AS clicks,
            round(coalesce(out.spend, 0)::numeric, 4)::float8 AS spend
       FROM days
       LEFT JOIN out USING (day) LEFT JOIN inb USING (day) LEFT JOIN opt USING (day) LEFT JOIN clk USING (day)
      ORDER BY days.day`,
    [
      accountId,
      from,
      to,
      timeZone,
      scope.campaignId ?? null,
      scope.jobId ?? null,
      scoped,
      scope.dripId ?? null,
      scope.workflowId ?? null,
      automation,
    ],
  );
  return rows;
}

/** The account's balance, currency, time zone and the messages waiting to be dispatched. */
export async function accountNow(
  db: Queryable,
  accountId: string,
  scope: ReportScope,
): Promise<{ balance: number; currency: string; timezone: string; queued: number } | undefined> {
  const { rows } = await db.query(
    `SELECT a.balance::float8 AS balance, a.currency, a.timezone,
            (SELECT count(*)::int FROM messages m
              WHERE m.account_id = a.id AND m.outgoing AND m.status IN ('queued', 'sending')
                AND ${IN_SCOPE('$1', '$2', '$3', '$4', '$5')}) AS queued
       FROM accounts a WHERE a.id = $1`,
    [
      accountId,
      scope.campaignId ?? null,
      scope.jobId ?? null,
      scope.dripId ?? null,
      scope.workflowId ?? null,
    ],
  );
  return rows[0];
}
