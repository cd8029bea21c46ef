import type { Queryable } from '../client.ts';

/**
 * Per-number send rate shared by every worker: one row per number holding the sends granted in
 * the current calendar second (sender_rates). Granting locks the row (INSERT … ON CONFLICT), so
 * concurrent claims never grant more than `mps` in one second between them.
 */

// The row's count in the window being granted (a row from an earlier second counts as 0).
const USED_NOW = 'CASE WHEN r.window_second = EXCLUDED.window_second THEN r.used ELSE 0 END';
// What a request gets: what it asked (EXCLUDED.used, already capped at mps) within what is left.
// A claim whose transaction began in a second another claim has already left gets nothing: the
// window never moves back, so no second is counted twice.
const GRANT = `least(EXCLUDED.used, greatest(0, EXCLUDED.mps - ${USED_NOW}))`;

/**
 * Asks for `wanted` sends per number in the current second; answers what each number was granted and
 * the second (Unix) the grants count in.
 */
export async function grantSends(
  db: Queryable,
  wants: { accountId: string; phoneNumberId: string; mps: number; wanted: number }[],
): Promise<{ granted: Map<string, number>; second: number }> {
  if (wants.length === 0) return { granted: new Map(), second: Math.floor(Date.now() / 1000) };
  const { rows } = await db.query<{ phone_number_id: string; granted: number; second: number }>(
    `INSERT INTO sender_rates AS r (phone_number_id, account_id, window_second, mps, used, granted)
     SELECT w.phone_number_id, w.account_id, floor(extract(epoch FROM now()))::bigint, w.mps,
            least(w.wanted, w.mps), least(w.wanted, w.mps)
     FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::int[]) AS w(account_id, phone_number_id, mps, wanted)
     ORDER BY w.phone_number_id
     ON CONFLICT (phone_number_id) DO UPDATE SET
       granted = CASE WHEN EXCLUDED.window_second < r.window_second THEN 0 ELSE ${GRANT} END,
       used = CASE WHEN EXCLUDED.window_second < r.window_second THEN r.used ELSE ${USED_NOW} + ${GRANT} END,
       window_second = greatest(r.window_second, EXCLUDED.window_second),
       mps = EXCLUDED.mps
     RETURNING r.phone_number_id, r.granted, floor(extract(epoch FROM now()))::bigint AS second`,
    [
      wants.map((w) => w.accountId),
      wants.map((w) => w.phoneNumberId),
      wants.map((w) => w.mps),
      wants.map((w) => w.wanted),
    ],
  );
  return {
    granted: new Map(rows.map((r) => [r.phone_number_id, r.granted])),
    second: Number(rows[0]?.second ?? Math.floor(Date.now() / 1000)),
  };
}

/** Numbers whose current one-second window is used up (their messages wait for the next second). */
export async function exhaustedSenders(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ phone_number_id: string }>(
    `SELECT phone_number_id FROM sender_rates
     WHERE window_second = floor(extract(epoch FROM now()))::bigint AND used >= mps`,
  );
  return rows.map((r) => r.phone_number_id);
}
