import type { Queryable } from '../client.ts';
import type { QueueSpec } from './claim.ts';

/** A send job row: one bulk send (its counts and charge). */
export interface SendJobRow {
  account_id: string;
  id: string;
  campaign_id: string | null;
  /**
   * queued (messages waiting) → sending → completed (none left to dispatch); a send with `sendAt`
   * starts `scheduled` and becomes queued at send_at, or `cancelled`, or `failed` (see error).
   */
  status: string;
  submitted: number;
  queued: number;
  failures: number;
  /** Messages not yet sent or failed. */
  pending: number;
  price: number;
  invalid: unknown[];
  created_at: Date;
  created_by: Record<string, unknown>;
  /** When a scheduled send runs (null: sent at once). */
  send_at: Date | null;
  /** The request of a scheduled send, run at send_at. */
  request: Record<string, unknown> | null;
  /** The numbers it sends from (migration 0420); null for a scheduled send not yet run. */
  phone_number_ids: string[] | null;
  /** Why a scheduled send could not run. */
  error: { code: string; description: string } | null;
}

export async function insertSendJob(
  db: Queryable,
  accountId: string,
  j: { id: string; campaignId: string | null; template: string; by: object },
): Promise<void> {
  await db.query(
    `INSERT INTO send_jobs (account_id, id, campaign_id, status, template, created_by)
     VALUES ($1, $2, $3, 'queued', $4, $5)`,
    [accountId, j.id, j.campaignId, j.template, j.by],
  );
}

/**
 * CTEs `level` and `lift` of a statement that opens a job for range dispatch (`account` the account,
 * `queued` the messages queued: SQL expressions): an account that had no open job starts level with
 * the others' least share (takeTurn serves the least first), or with none open, the most of all (no
 * one is owed turns then): time spent idle earns no turns.
 */
const liftShare = (account: string, queued: string) => `level AS (
       SELECT coalesce((SELECT min(o.served) FROM dispatch_shares o
                         WHERE o.account_id <> ${account}
                           AND EXISTS (SELECT 1 FROM dispatch_cursors c WHERE c.account_id = o.account_id)),
                       (SELECT max(o.served) FROM dispatch_shares o WHERE o.account_id <> ${account})) AS served
     ), lift AS (
       UPDATE dispatch_shares s SET served = (SELECT served FROM level)
        WHERE s.account_id = ${account} AND ${queued} > 0
          AND NOT EXISTS (SELECT 1 FROM dispatch_cursors c WHERE c.account_id = ${account})
          AND s.served < (SELECT served FROM level)
     )`;
const LIFT_SHARE = liftShare('$1', '$4');

/** A send of at most this many messages (no campaign's) is transactional: see setSendJobCounts. */
export const TRANSACTIONAL_MAX = 10;

/**
 * Records what a send submitted, queued, failed and charged. With `create`, the job is inserted
 * with its counts in the same statement (a job nothing reads before its messages are in: an SMPP
 * batch), instead of updating the row insertSendJob wrote.
 */
export async function setSendJobCounts(
  db: Queryable,
  accountId: string,
  jobId: string,
  c: {
    submitted: number;
    queued: number;
    failures: number;
    price: number;
    invalid: unknown[];
    /** The holds of its queued messages (quiet hours), null for none: one dispatch cursor each. */
    holds: (Date | null)[];
    /** The numbers it sends from (its sender pool): its estimated finish time reads them. */
    numberIds: string[];
  },
  create?: { campaignId: string | null; template: string; by: object },
): Promise<SendJobRow> {
  const status = `CASE WHEN $4 > 0 THEN 'queued' ELSE 'completed' END`;
  // Transactional (dispatched before the account's bulk jobs, issue 25): an SMPP client's
  // submissions (`create`), or a send of at most TRANSACTIONAL_MAX messages that is no campaign's.
  const transactional = create
    ? 'true'
    : `($4 <= ${TRANSACTIONAL_MAX} AND NOT EXISTS (SELECT 1 FROM send_jobs j WHERE j.account_id = $1 AND j.id = $2 AND j.campaign_id IS NOT NULL))`;
  const write = create
    ? `INSERT INTO send_jobs (account_id, id, campaign_id, template, created_by, submitted, queued, pending, failures,
                             price, invalid, status, phone_number_ids)
       VALUES ($1, $2, $10, $11, $12, $3, $4, $4, $5, $6, $7, ${status}, $9) RETURNING *`
    : `UPDATE send_jobs SET submitted = $3, queued = $4, pending = $4, failures = $5, price = $6, invalid = $7,
            status = ${status}, phone_number_ids = $9
     WHERE account_id = $1 AND id = $2 RETURNING *`;
  const { rows } = await db.query<SendJobRow>(
    // A job with queued (bulk) messages is opened for range dispatch: one cursor per hold.
    `WITH ${LIFT_SHARE}, open AS (
       INSERT INTO dispatch_cursors (account_id, job_id, not_before, transactional)
       SELECT DISTINCT $1::uuid, $2::uuid, coalesce(h, '-infinity'), ${transactional}
         FROM unnest($8::timestamptz[]) AS h WHERE $4 > 0
     )
     ${write}`,
    [
      accountId,
      jobId,
      c.submitted,
      c.queued,
      c.failures,
      c.price,
      JSON.stringify(c.invalid),
      c.holds.length > 0 ? c.holds : [null],
      c.numberIds,
      ...(create ? [create.campaignId, create.template, create.by] : []),
    ],
  );
  return rows[0];
}

/**
 * CTEs that add a batch of messages to an open relay job (an SMPP client's submissions:
 * SubmitBatcher, smpp-relay.ts) and charge the account, each value a SQL expression: the job's counts
 * grow (a job its dispatcher had completed is sending again), its dispatch cursor is opened again at
 * `after` (the last message of the relay's previous batch, which the dispatcher had handed out when
 * it closed the cursor) or, when still open, locked as it is, and the balance is charged. `job`
 * reads `cur` and `charge` reads `job`: a statement that reads `job` and `charge` takes the locks in
 * the dispatcher's order (cursor, job, account: no deadlock with a claim or a record), and holds the
 * cursor's to its commit, so a claim of this job waits for these messages rather than close the
 * cursor with them unseen. `job` has no row when the job was cancelled (PUT …/jobs/{id}/cancel);
 * `charge` answers the balance after the charge (no row when nothing was charged).
 */
export function relayExtendSql(v: {
  account: string;
  job: string;
  submitted: string;
  queued: string;
  failures: string;
  price: string;
  after: string;
}): string {
  return `cur AS (
       INSERT INTO dispatch_cursors AS c (account_id, job_id, not_before, transactional, cursor)
       SELECT ${v.account}, ${v.job}, '-infinity', true, ${v.after} WHERE ${v.queued} > 0
       ON CONFLICT (account_id, job_id, not_before) DO UPDATE SET cursor = c.cursor
       RETURNING c.job_id
     ), job AS (
       UPDATE send_jobs j SET submitted = j.submitted + ${v.submitted}, queued = j.queued + ${v.queued},
              pending = j.pending + ${v.queued}, failures = j.failures + ${v.failures}, price = j.price + ${v.price},
              status = CASE WHEN ${v.queued} > 0 AND j.status = 'completed' THEN 'sending' ELSE j.status END,
              updated_at = now()
        WHERE j.account_id = ${v.account} AND j.id = ${v.job} AND j.status IN ('queued', 'sending', 'completed')
          AND j.cancelled_at IS NULL AND (SELECT count(*) FROM cur) >= 0
       RETURNING j.id
     ), ${liftShare(v.account, v.queued)}, charge AS (
       UPDATE accounts a SET balance = a.balance - ${v.price}, updated_at = now()
        WHERE a.id = ${v.account} AND ${v.price} > 0 AND EXISTS (SELECT 1 FROM job)
       RETURNING a.balance::float8
     )`;
}

export async function findSendJob(
  db: Queryable,
  accountId: string,
  jobId: string,
): Promise<SendJobRow | undefined> {
  const { rows } = await db.query<SendJobRow>('SELECT * FROM send_jobs WHERE account_id = $1 AND id = $2', [
    accountId,
    jobId,
  ]);
  return rows[0];
}

/** A send with `sendAt`: its job in status `scheduled`, with the request it will run and its estimate. */
export async function insertScheduledJob(
  db: Queryable,
  accountId: string,
  j: {
    id: string;
    template: string;
    sendAt: Date;
    request: object;
    submitted: number;
    price: number;
    invalid: unknown[];
    by: object;
  },
): Promise<SendJobRow> {
  const { rows } = await db.query<SendJobRow>(
    `INSERT INTO send_jobs (account_id, id, status, template, send_at, request, submitted, price, invalid, created_by)
     VALUES ($1, $2, 'scheduled', $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [accountId, j.id, j.template, j.sendAt, j.request, j.submitted, j.price, JSON.stringify(j.invalid), j.by],
  );
  return rows[0];
}

/**
 * Turns a scheduled job into a running send, inside the send's transaction: answers false when it
 * is no longer scheduled (cancelled, or run by another worker — the row lock orders them).
 */
export async function startScheduledJob(db: Queryable, accountId: string, jobId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE send_jobs SET status = 'queued', updated_at = now()
     WHERE account_id = $1 AND id = $2 AND status = 'scheduled'`,
    [accountId, jobId],
  );
  return rowCount === 1;
}

/** Ends a scheduled job as `cancelled` or `failed` (with its error); undefined when it was not scheduled. */
export async function endScheduledJob(
  db: Queryable,
  accountId: string,
  jobId: string,
  end: { status: 'cancelled' } | { status: 'failed'; error: { code: string; description: string } },
): Promise<SendJobRow | undefined> {
  const { rows } = await db.query<SendJobRow>(
    `UPDATE send_jobs SET status = $3, error = $4, updated_at = now()
     WHERE account_id = $1 AND id = $2 AND status = 'scheduled' RETURNING *`,
    [accountId, jobId, end.status, end.status === 'failed' ? end.error : null],
  );
  return rows[0];
}

/**
 * Scheduled sends whose time has come, oldest first (any account), leased while a worker runs
 * one; the run itself takes the job in the send's transaction (startScheduledJob).
 */
export const SCHEDULED_QUEUE: QueueSpec = {
  table: 'send_jobs',
  key: ['account_id', 'id'],
  due: `q.status = 'scheduled' AND q.send_at <= now()`,
  order: 'q.send_at',
  lease: { until: 'claimed_until', token: 'claim_token' },
  attempts: 'attempts',
};

/** What a scheduled-send claim answers. */
export type ScheduledJob = Pick<SendJobRow, 'account_id' | 'id' | 'request' | 'created_by'> & {
  attempts: number;
};
export const SCHEDULED_CLAIM_RETURNING = 't.account_id, t.id, t.request, t.created_by, t.attempts';
