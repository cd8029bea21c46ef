/**
 * SQL of the expiry sweep (docs/encoding.md): queued messages whose validity period ended fail as
 * expired (MSG-012). Each statement fails its messages, refunds their price to the account and
 * their job, and writes their `message-status` event at once: the refund happens in the same
 * transaction as the change of state, and only for rows that change from `queued` (never twice).
 */
import { EXPIRED_ERROR } from '../../messaging/validity.ts';
import type { Queryable } from '../client.ts';
import { heardOnce } from './events.ts';
import { JOB_SETTLE, REFUND_FAILED } from './message-dispatch.ts';
import { MESSAGE_EVENT_DATA } from './messages.ts';

/** Fails the locked rows of CTE `r(account_id, id, old_price)`, refunds them and writes their events. */
const FAIL_EXPIRED = `upd AS (
       UPDATE messages m SET status = 'failed', error = $2::jsonb, price = 0, claimed_until = NULL, updated_at = now()
       FROM r WHERE m.account_id = r.account_id AND m.id = r.id AND m.status = 'queued'
       RETURNING m.*, r.old_price
     ), fin AS (
       SELECT account_id, job_id, count(*) AS n, count(*) AS nf, sum(old_price) AS amount
       FROM upd GROUP BY account_id, job_id
     ), job AS (
       ${JOB_SETTLE}
     ), acct AS (
       ${REFUND_FAILED}
     ), ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA} FROM upd m
       WHERE ${heardOnce('upd', 'm.account_id', "'message-status'")} ORDER BY m.id
     )
     SELECT count(*)::int AS n FROM upd`;

/**
 * Expires up to `limit` queued messages of the per-message queue (one-off messages and retries)
 * whose validity ended. A dispatcher's claim locks such a row and moves it to `sending`; rows it
 * holds are skipped here, and a `sending` one is the dispatcher's to check. Answers how many.
 */
export async function expireQueuedMessages(db: Queryable, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH r AS (
       SELECT m.account_id, m.id, m.price AS old_price FROM messages m
       WHERE m.expiring_at <= now() AND m.status = 'queued' AND NOT m.bulk
       ORDER BY m.expiring_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), ${FAIL_EXPIRED}`,
    [limit, JSON.stringify(EXPIRED_ERROR)],
  );
  return rows[0].n;
}

/**
 * Expires up to `limit` queued bulk messages whose validity ended and that no range has taken yet
 * (past their job's cursor). The cursor row is locked first (skipped while a claim holds it): a
 * claim needs that lock to hand out messages, so none of these can be on its way to a carrier.
 * Messages already in a range are failed by the dispatcher when it reaches them (it checks expiry
 * before submitting). Answers how many.
 */
export async function expireBulkMessages(db: Queryable, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH e AS (
       SELECT DISTINCT x.account_id, x.job_id, x.hold FROM (
         SELECT m.account_id, m.job_id, coalesce(m.not_before, '-infinity'::timestamptz) AS hold FROM messages m
         WHERE m.expiring_at <= now() AND m.status = 'queued' AND m.bulk
         ORDER BY m.expiring_at LIMIT $1) x
     ), cur AS (
       SELECT c.account_id, c.job_id, c.not_before, c.cursor FROM dispatch_cursors c
       JOIN e ON c.account_id = e.account_id AND c.job_id = e.job_id AND c.not_before = e.hold
       FOR UPDATE OF c SKIP LOCKED
     ), r AS (
       SELECT m.account_id, m.id, m.price AS old_price FROM cur
       JOIN messages m ON m.account_id = cur.account_id AND m.job_id = cur.job_id
         AND m.id > coalesce(cur.cursor, '00000000-0000-0000-0000-000000000000'::uuid)
       WHERE m.bulk AND m.expiring_at <= now() AND m.status = 'queued'
         AND coalesce(m.not_before, '-infinity'::timestamptz) = cur.not_before
       LIMIT $1 FOR UPDATE OF m SKIP LOCKED
     ), ${FAIL_EXPIRED}`,
    [limit, JSON.stringify(EXPIRED_ERROR)],
  );
  return rows[0].n;
}
