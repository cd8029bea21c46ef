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
