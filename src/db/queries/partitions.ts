/**
 * SQL of the time partitions of messages, events and webhook_deliveries (migration 0355): month
 * partitions on the UUIDv7 id, created ahead and dropped whole past the retention.
 */

import type { Queryable } from '../client.ts';

/** A month partition: its name and the id range it holds. */
interface Part {
  name: string;
  lo: string;
  hi: string;
}

/** The tables partitioned by month, and what keeps a month past retention from being dropped. */
const TABLES: { table: string; busy: (p: Part) => { text: string; values: string[] } }[] = [
  // A message still in the queue (queued, or claimed by a dispatcher) is not final.
  {
    table: 'messages',
    busy: (p) => ({
      text: `SELECT 1 FROM "${p.name}" WHERE status IN ('queued', 'sending') LIMIT 1`,
      values: [],
    }),
  },
  // An event still waiting to be fanned out to webhook deliveries.
  {
    table: 'events',
    busy: (p) => ({
      text: 'SELECT 1 FROM webhook_event_queue WHERE event_id >= $1 AND event_id < $2 LIMIT 1',
      values: [p.lo, p.hi],
    }),
  },
  // A delivery still to be attempted.
  {
    table: 'webhook_deliveries',
    busy: (p) => ({ text: `SELECT 1 FROM "${p.name}" WHERE status = 'pending' LIMIT 1`, values: [] }),
  },
];

/** Distinct key of the maintenance round's transaction-level advisory lock. */
const LOCK_KEY = 'sparrow:partition-maintenance';

export interface PartitionRound {
  /** False when another process holds the round (it does the work). */
  ran: boolean;
  created: string[];
  dropped: string[];
  /** Months past retention kept because they still hold work (a table_pYYYY_MM each). */
  kept: string[];
}

/**
 * One maintenance round, in the caller's transaction, under a transaction-level advisory lock
 * taken without waiting (a second process at the same moment answers `ran: false`). Creates the
 * partitions of the current month and `monthsAhead` months after it, and of any month whose rows
 * wait in a default partition (they move in); drops each month partition that ended more than
 * `retentionDays` ago (0: never) unless it still holds work.
 */
export async function maintainPartitions(
  tx: Queryable,
  o: { monthsAhead: number; retentionDays: number },
): Promise<PartitionRound> {
  const round: PartitionRound = { ran: false, created: [], dropped: [], kept: [] };
  const { rows: lock } = await tx.query<{ ok: boolean }>(
    'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok',
    [LOCK_KEY],
  );
  if (!lock[0].ok) return round;
  round.ran = true;
  // Creating or dropping a partition locks its table: wait briefly, never behind a long query.
  await tx.query(`SET LOCAL lock_timeout = '10s'`);
  for (const { table, busy } of TABLES) {
    const { rows: made } = await tx.query<{ month: string }>(
      `SELECT to_char(m, 'YYYY_MM') AS month FROM (
         SELECT generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'),
                                date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => $2),
                                interval '1 month')::date AS m
         UNION
         SELECT DISTINCT date_trunc('month', sparrow_uuidv7_time(id) AT TIME ZONE 'UTC')::date FROM ${table}_default
          WHERE sparrow_uuidv7_time(id) BETWEEN '2000-01-01' AND now() + make_interval(months => $2 + 1)
       ) months WHERE sparrow_create_partition($1, m) ORDER BY 1`,
      [table, o.monthsAhead],
    );
    round.created.push(...made.map((r) => `${table}_p${r.month}`));
    if (o.retentionDays <= 0) continue;
    const { rows: old } = await tx.query<Part>(
      `SELECT c.relname AS name, sparrow_uuidv7_floor(p.month) AS lo,
              sparrow_uuidv7_floor(p.month + interval '1 month') AS hi
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         CROSS JOIN LATERAL (SELECT (to_date(substring(c.relname FROM '_p(\\d{4}_\\d{2})$'), 'YYYY_MM')::timestamp
                                     AT TIME ZONE 'UTC') AS month) p
        WHERE i.inhparent = $1::regclass AND c.relname ~ '_p\\d{4}_\\d{2}$'
          AND p.month + interval '1 month' <= now() - make_interval(days => $2)
        ORDER BY 1`,
      [table, o.retentionDays],
    );
    for (const part of old) {
      const { rowCount } = await tx.query(busy(part));
      if (rowCount) {
        round.kept.push(part.name);
        continue;
      }
      await tx.query(`DROP TABLE "${part.name}"`);
      round.dropped.push(part.name);
    }
  }
  return round;
}
