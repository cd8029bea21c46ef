import type { Queryable } from '../client.ts';

/** Writes one event row to the outbox (call inside the transaction of the change it announces). */
export async function insertEvent(
  db: Queryable,
  accountId: string,
  e: { id: string; type: string; data: object },
) {
  await db.query('INSERT INTO events (id, account_id, type, data) VALUES ($1, $2, $3, $4)', [
    e.id,
    accountId,
    e.type,
    e.data,
  ]);
}

/** Many events of one type in one statement (bulk operations), in the order given. */
export async function insertEvents(
  db: Queryable,
  accountId: string,
  type: string,
  events: { id: string; data: object }[],
): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO events (id, account_id, type, data)
     SELECT e.id, $1, $2, e.data FROM unnest($3::uuid[], $4::jsonb[]) WITH ORDINALITY AS e(id, data, o) ORDER BY e.o`,
    [accountId, type, events.map((e) => e.id), events.map((e) => JSON.stringify(e.data))],
  );
}
