/**
 * SQL of daily caps (migration 0420): an optional cap per number (phone_numbers.daily_cap) and per
 * sender group (groups.daily_cap) on the messages handed to the carrier in a day, the account's
 * calendar day in its time zone. Each capped number and group has a counter row per day
 * (daily_sends), granted by sparrow_grant_daily; messages past a cap are held for the next day.
 */
import type { Queryable } from '../client.ts';
import { numberZonesLateral } from './phone-zones.ts';

/**
 * SQL: whether the number `n` (a phone_numbers row alias) is under a daily cap, its own or a group's.
 * The dispatcher asks sparrow_grant_daily only for such numbers.
 */
export function dailyCappedSql(n: string): string {
  return `(${n}.daily_cap IS NOT NULL OR EXISTS (
            SELECT 1 FROM group_numbers gn JOIN groups g ON g.account_id = gn.account_id AND g.id = gn.group_id
             WHERE gn.account_id = ${n}.account_id AND gn.phone_number_id = ${n}.id AND g.daily_cap IS NOT NULL))`;
}

/** What a number was granted today by its daily caps. */
export interface DailyGrant {
  granted: number;
  /** Its tightest cap (its own or a group's) is used up: nothing more goes from it today. */
  exhausted: boolean;
  /** The day the grant counted in (YYYY-MM-DD, the account's calendar day). */
  day: string;
}

/**
 * Asks for `wanted` sends today per capped number (within its own cap and its groups'), in one
 * statement of its own: call it on the pool, not in a claim's transaction (the counter rows are
 * locked for the statement only, as sender_rates are). A claim that fails after this leaves its
 * grants unused: a day can only be under-used, never exceeded.
 */
export async function grantDaily(
  db: Queryable,
  wants: { accountId: string; phoneNumberId: string; wanted: number }[],
): Promise<Map<string, DailyGrant>> {
  if (wants.length === 0) return new Map();
  const { rows } = await db.query<{
    number_id: string;
    granted: number;
    left_after: number | null;
    day: string;
  }>({
    name: 'daily-caps-grant',
    text: `SELECT number_id, granted, left_after, on_day::text AS day
             FROM sparrow_grant_daily($1::uuid[], $2::uuid[], $3::int[])`,
    values: [wants.map((w) => w.accountId), wants.map((w) => w.phoneNumberId), wants.map((w) => w.wanted)],
  });
  return new Map(
    rows.map((r) => [
      r.number_id,
      { granted: r.granted, exhausted: r.left_after !== null && r.left_after <= 0, day: r.day },
    ]),
  );
}

/** The instant a day after `day` begins in the account's zone, as SQL (`x.day`, `a.timezone`). */
const NEXT_DAY = '((x.day::date + 1)::timestamp AT TIME ZONE a.timezone)';

/**
 * Holds queued messages whose number's (or group's) daily cap is used up until the next day of
 * their account: `not_before` becomes the start of the day after `day` in the account's time zone
 * (with `quietHours`, not before 8:00 in the recipient's zone either: sparrow_quiet_until). A bulk
 * message gets a dispatch cursor for its new hold (one per job and hold, as quiet hours open them,
 * ordered as its job), so the job's range claims take it up then; a one-off message waits in the
 * per-message queue. The messages must be locked by the caller (a claim); one taken over from a
 * dead claim (`sending`) goes back to `queued`. Answers how many were held.
 *
 * The cursor of a hold is locked (created, or updated in place) until the caller commits, so no
 * range claim reads it before these messages are in it. One that a claim had already moved past
 * some of them (the hold had come: a claim that straddled the day's start) cannot take them: they
 * get a hold of their own a second later (a cursor only goes forward).
 */
export async function holdForNextDay(
  db: Queryable,
  held: { accountId: string; id: string; day: string }[],
  quietHours: boolean,
): Promise<number> {
  if (held.length === 0) return 0;
  const hold = quietHours
    ? `coalesce(sparrow_quiet_until(pz.zones, a.timezone, ${NEXT_DAY}), ${NEXT_DAY})`
    : NEXT_DAY;
  const zones = quietHours ? `LEFT JOIN LATERAL ${numberZonesLateral('o.to_number')} pz ON true` : '';
  const { rows } = await db.query<{ n: number }>(
    `WITH x AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::date[]) AS x(account_id, id, day)
     ), h AS (
       SELECT o.account_id, o.id, o.job_id, o.bulk AND o.job_id IS NOT NULL AS ranged, ${hold} AS at
         FROM x JOIN accounts a ON a.id = x.account_id
         JOIN messages o ON o.account_id = x.account_id AND o.id = x.id
         ${zones}
        WHERE o.status IN ('queued', 'sending')
     ), k AS (
       SELECT h.account_id, h.job_id, h.at, (array_agg(h.id ORDER BY h.id))[1] AS lo, j.created_at
         FROM h JOIN send_jobs j ON j.account_id = h.account_id AND j.id = h.job_id
        WHERE h.ranged GROUP BY h.account_id, h.job_id, h.at, j.created_at
     ), joined AS (
       INSERT INTO dispatch_cursors AS c (account_id, job_id, not_before, transactional, created_at)
       SELECT k.account_id, k.job_id, k.at, false, k.created_at FROM k ORDER BY 1, 2, 3
       ON CONFLICT (account_id, job_id, not_before) DO UPDATE SET cursor = c.cursor
       RETURNING c.account_id, c.job_id, c.not_before, c.cursor
     ), moved AS (
       SELECT k.account_id, k.job_id, k.at, clock_timestamp() + interval '1 second' AS fresh, k.created_at
         FROM k JOIN joined c ON c.account_id = k.account_id AND c.job_id = k.job_id AND c.not_before = k.at
        WHERE c.cursor >= k.lo
     ), fresh AS (
       INSERT INTO dispatch_cursors (account_id, job_id, not_before, transactional, created_at)
       SELECT account_id, job_id, fresh, false, created_at FROM moved
       ON CONFLICT DO NOTHING
     ), upd AS (
       UPDATE messages m SET status = 'queued', not_before = coalesce(mv.fresh, h.at), claimed_until = NULL,
              updated_at = now()
         FROM h LEFT JOIN moved mv ON h.ranged AND mv.account_id = h.account_id AND mv.job_id = h.job_id
                                  AND mv.at = h.at
        WHERE m.account_id = h.account_id AND m.id = h.id
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM upd`,
    [held.map((h) => h.accountId), held.map((h) => h.id), held.map((h) => h.day)],
  );
  return rows[0].n;
}

/** A number as the estimated finish time of a send reads it. */
export interface PacingNumber {
  id: string;
  active: boolean;
  throughput_mps: number;
  daily_cap: number | null;
  /** Granted today (the account's day) against its own cap. */
  used_today: number;
}

/** A capped group over some of a send's numbers. */
export interface PacingGroup {
  id: string;
  daily_cap: number;
  used_today: number;
  /** Those of the send's numbers that are in the group. */
  number_ids: string[];
}

/** What the estimated finish time of a send job is computed from (one job; cheap reads only). */
export interface JobPacing {
  /** The database's clock (ms) and the account's zone: days are the account's. */
  now: number;
  timezone: string;
  numbers: PacingNumber[];
  groups: PacingGroup[];
  /** Messages still to go of the account's earlier open sends that share a number with this one. */
  ahead: number;
  /** The earliest hold of the job's undispatched bulk messages (quiet hours, a daily cap), if all are held. */
  heldUntil: number | null;
}

/**
 * Reads the pacing of a send from the numbers `numberIds`: their rates and caps and what today's
 * counters used, the capped groups over them, the `pending` of the account's earlier sends with
 * messages not yet handed out on any of them (the job rows' own counts, no message is read) and
 * the job's dispatch cursors.
 */
export async function jobPacing(
  db: Queryable,
  accountId: string,
  jobId: string,
  numberIds: string[],
): Promise<JobPacing> {
  const { rows } = await db.query<{
    now: Date;
    timezone: string;
    numbers: PacingNumber[] | null;
    groups: PacingGroup[] | null;
    ahead: number;
    held_until: Date | null;
  }>({
    name: 'daily-caps-job-pacing',
    text: `WITH acct AS (
             SELECT a.timezone, (now() AT TIME ZONE a.timezone)::date AS today FROM accounts a WHERE a.id = $1
           ), nums AS (
             SELECT n.id, n.status = 'active' AND n.verified AS active, n.throughput_mps, n.daily_cap,
                    coalesce((SELECT d.used FROM daily_sends d, acct
                               WHERE d.account_id = $1 AND d.scope = 'number' AND d.key_id = n.id
                                 AND d.day = acct.today), 0) AS used_today
               FROM phone_numbers n WHERE n.account_id = $1 AND n.id = ANY($3::uuid[])
           ), grps AS (
             SELECT g.id, g.daily_cap,
                    coalesce((SELECT d.used FROM daily_sends d, acct
                               WHERE d.account_id = $1 AND d.scope = 'group' AND d.key_id = g.id
                                 AND d.day = acct.today), 0) AS used_today,
                    array_agg(gn.phone_number_id) AS number_ids
               FROM groups g JOIN group_numbers gn ON gn.account_id = g.account_id AND gn.group_id = g.id
              WHERE g.account_id = $1 AND g.daily_cap IS NOT NULL AND gn.phone_number_id = ANY($3::uuid[])
              GROUP BY g.id, g.daily_cap
           )
           SELECT now(), (SELECT timezone FROM acct) AS timezone,
                  (SELECT json_agg(nums) FROM nums) AS numbers,
                  (SELECT json_agg(grps) FROM grps) AS groups,
                  -- The account's open sends are those with a dispatch cursor (a few rows), not
                  -- every job it ever made (an SMPP client's windows are jobs of their own).
                  (SELECT coalesce(sum(o.pending), 0)::int FROM send_jobs o
                    WHERE o.account_id = $1
                      AND o.id IN (SELECT c.job_id FROM dispatch_cursors c WHERE c.account_id = $1 AND c.job_id < $2)
                      AND o.status IN ('queued', 'sending') AND o.cancelled_at IS NULL
                      AND o.phone_number_ids && $3::uuid[]) AS ahead,
                  (SELECT CASE WHEN bool_and(c.not_before > now()) THEN min(c.not_before) END
                     FROM dispatch_cursors c WHERE c.account_id = $1 AND c.job_id = $2) AS held_until`,
    values: [accountId, jobId, numberIds],
  });
  const r = rows[0];
  return {
    now: r.now.getTime(),
    timezone: r.timezone,
    numbers: r.numbers ?? [],
    groups: r.groups ?? [],
    ahead: r.ahead,
    heldUntil: r.held_until ? r.held_until.getTime() : null,
  };
}
