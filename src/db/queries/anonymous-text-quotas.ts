import type { Queryable } from '../client.ts';

/** Whose hourly budget of anonymous texts: a hosted form's, or a meeting event type's. */
export type AnonymousTextKind = 'form' | 'booking';

/**
 * Takes `count` texts from the owner's budget for the clock hour starting at `windowStart`, if the
 * hour's total stays within `cap`; answers whether it did. A row of an earlier hour starts over.
 * The row lock holds until the caller's transaction ends, so concurrent takers queue up.
 */
export async function takeAnonymousTexts(
  tx: Queryable,
  accountId: string,
  q: { kind: AnonymousTextKind; ownerId: string; windowStart: Date; count: number; cap: number },
): Promise<boolean> {
  if (q.count > q.cap) return false;
  const { rowCount } = await tx.query(
    `INSERT INTO anonymous_text_quotas AS q (account_id, kind, owner_id, window_start, used)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, kind, owner_id) DO UPDATE
        SET window_start = EXCLUDED.window_start,
            used = CASE WHEN q.window_start = EXCLUDED.window_start THEN q.used ELSE 0 END + EXCLUDED.used
      WHERE CASE WHEN q.window_start = EXCLUDED.window_start THEN q.used ELSE 0 END + EXCLUDED.used <= $6`,
    [accountId, q.kind, q.ownerId, q.windowStart, q.count, q.cap],
  );
  return rowCount === 1;
}
