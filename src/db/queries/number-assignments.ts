// The operator's assignments of numbers on real carriers (migration 0370; docs/routing.md, "Who
// may send from a number").
import type { Queryable } from '../client.ts';

export interface NumberAssignmentRow {
  provider: string;
  number: string;
  account_id: string;
  created_at: Date;
  created_by: Record<string, unknown>;
}

/**
 * Assigns a number on a provider to an account. Answers the assignment that stands afterwards:
 * this one, the same one made before, or another account's (then nothing changed).
 */
export async function insertAssignment(
  db: Queryable,
  a: { provider: string; number: string; accountId: string; by: object },
): Promise<NumberAssignmentRow> {
  const { rows } = await db.query<NumberAssignmentRow>(
    `WITH made AS (
       INSERT INTO number_assignments (provider, number, account_id, created_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (provider, number) DO NOTHING RETURNING *)
     SELECT * FROM made
     UNION ALL
     SELECT * FROM number_assignments WHERE provider = $1 AND number = $2 AND NOT EXISTS (SELECT 1 FROM made)`,
    [a.provider, a.number, a.accountId, a.by],
  );
  return rows[0];
}

/** Removes an account's assignment of a number on a provider; answers whether there was one. */
export async function deleteAssignment(
  db: Queryable,
  a: { provider: string; number: string; accountId: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM number_assignments WHERE provider = $1 AND number = $2 AND account_id = $3',
    [a.provider, a.number, a.accountId],
  );
  return (rowCount ?? 0) > 0;
}

/** Whether the operator assigned this number on this provider to this account. */
export async function isAssigned(
  db: Queryable,
  a: { provider: string; number: string; accountId: string },
): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM number_assignments WHERE provider = $1 AND number = $2 AND account_id = $3',
    [a.provider, a.number, a.accountId],
  );
  return rows.length > 0;
}

/** Every assignment (of one account, or of all), by account then number. */
export async function listAssignments(
  db: Queryable,
  accountId: string | null,
): Promise<NumberAssignmentRow[]> {
  const { rows } = await db.query<NumberAssignmentRow>(
    `SELECT * FROM number_assignments WHERE $1::uuid IS NULL OR account_id = $1
      ORDER BY account_id, number, provider`,
    [accountId],
  );
  return rows;
}

/**
 * The providers each (account, number) pair is assigned on, for the dispatcher: one indexed
 * query for a batch's senders. Keyed `accountId|number`.
 */
export async function assignedProviders(
  db: Queryable,
  pairs: { accountId: string; number: string }[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (pairs.length === 0) return out;
  const { rows } = await db.query<{ account_id: string; number: string; provider: string }>(
    `SELECT a.account_id, a.number, a.provider
       FROM unnest($1::uuid[], $2::text[]) AS s (account_id, number)
       JOIN number_assignments a ON a.account_id = s.account_id AND a.number = s.number`,
    [pairs.map((p) => p.accountId), pairs.map((p) => p.number)],
  );
  for (const r of rows) {
    const key = `${r.account_id}|${r.number}`;
    let set = out.get(key);
    if (!set) {
      set = new Set();
      out.set(key, set);
    }
    set.add(r.provider);
  }
  return out;
}

/**
 * Marks unverified the held numbers of assigned providers (any provider but the simulator and the
 * given Twilio-compatible ones, which are asked) that are verified without an assignment: numbers
 * an account took on a carrier before assignments existed. Answers what it marked.
 */
export async function unverifyUnassigned(
  db: Queryable,
  askedProviders: string[],
  by: object,
): Promise<{ account_id: string; number: string; provider: string }[]> {
  const { rows } = await db.query<{ account_id: string; number: string; provider: string }>(
    `UPDATE phone_numbers p SET verified = false, updated_at = now(), updated_by = $2
      WHERE p.verified AND p.status <> 'released' AND p.provider <> 'simulator' AND p.provider <> ALL($1::text[])
        AND NOT EXISTS (SELECT 1 FROM number_assignments a
                         WHERE a.provider = p.provider AND a.number = p.number AND a.account_id = p.account_id)
      RETURNING p.account_id, p.number, p.provider`,
    [askedProviders, by],
  );
  return rows;
}
