import type { Queryable } from '../client.ts';

/**
 * The condition on an event row that it is heard: the four types a send writes per recipient
 * (`contact-created`, `conversation-started`, `message-sent`, `message-status`) are written only
 * where the account has a listener for them (sparrow_event_heard, migration 0400); every other
 * type always. Every statement that may write one of the four puts it in its WHERE (`account`
 * and `type` are SQL expressions).
 */
export const eventHeard = (account: string, type: string) => `sparrow_event_heard(${account}, ${type})`;

/**
 * eventHeard for the rows of a statement that span accounts (`rows`: a CTE, read as `m`; `account`
 * and `type`: expressions over `m`), asked once per account and type instead of once per row: a
 * dispatcher's outcomes, 64 rows of one account, asked 64 times (about a tenth of the statement's time).
 */
export const heardOnce = (rows: string, account: string, type: string) =>
  // An uncorrelated ARRAY(...) is an init plan, run once (an IN was made a join, asked per row);
  // OFFSET 0 keeps the condition above the DISTINCT (pushed below it, it was asked per row again).
  `(${account}::text || ' ' || ${type}) = ANY (ARRAY(
     SELECT h.a::text || ' ' || h.t FROM (SELECT DISTINCT ${account} AS a, ${type} AS t FROM ${rows} m OFFSET 0) h
      WHERE ${eventHeard('h.a', 'h.t')}))`;

/** Writes one event row to the outbox (call inside the transaction of the change it announces), if heard. */
export async function insertEvent(
  db: Queryable,
  accountId: string,
  e: { id: string; type: string; data: object },
) {
  await db.query(
    `INSERT INTO events (id, account_id, type, data) SELECT $1, $2, $3, $4 WHERE ${eventHeard('$2::uuid', '$3::text')}`,
    [e.id, accountId, e.type, e.data],
  );
}

/** Many events of one type in one statement (bulk operations), in the order given, if heard. */
export async function insertEvents(
  db: Queryable,
  accountId: string,
  type: string,
  events: { id: string; data: object }[],
): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO events (id, account_id, type, data)
     SELECT e.id, $1, $2, e.data FROM unnest($3::uuid[], $4::jsonb[]) WITH ORDINALITY AS e(id, data, o)
     WHERE ${eventHeard('$1::uuid', '$2::text')} ORDER BY e.o`,
    [accountId, type, events.map((e) => e.id), events.map((e) => JSON.stringify(e.data))],
  );
}
