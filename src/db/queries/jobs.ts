/**
 * SQL of jobs as resources (migration 0272): every send job (kind `send`) and bulk contact
 * operations (kind `contacts`), listed and counted; cancelling a running send; a bulk contact
 * job's selection and its progress.
 */
import { recordedError } from '../../errors.ts';
import type { Queryable } from '../client.ts';
import { lockDue, type QueueSpec } from './claim.ts';
import { MESSAGE_STATUS_SQL } from './messages.ts';
import type { SendJobRow } from './send-jobs.ts';

/** A job row with the columns of migration 0272. */
export interface JobRow extends SendJobRow {
  kind: 'send' | 'contacts';
  cancelled_at: Date | null;
  cancelled_by: Record<string, unknown> | null;
  cursor: string | null;
  done: number;
  changed: number;
  updated_at: Date | null;
}

/** Filters of the job list. */
export interface JobFilter {
  status?: string;
  kind?: string;
  from?: Date;
  to?: Date;
}

/** One page of the account's jobs, newest first (ids are UUIDv7: creation order), with the total. */
export async function listJobs(
  db: Queryable,
  accountId: string,
  f: JobFilter,
  offset: number,
  limit: number,
): Promise<{ rows: JobRow[]; total: number }> {
  const params: unknown[] = [accountId];
  const where = ['account_id = $1'];
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // A cancelled send reads `cancelled` whatever its in-flight messages do (presentJob): so it is filtered.
  if (f.status === 'cancelled') where.push(`(status = 'cancelled' OR cancelled_at IS NOT NULL)`);
  else if (f.status) where.push(`status = ${add(f.status)} AND cancelled_at IS NULL`);
  if (f.kind) where.push(`kind = ${add(f.kind)}`);
  if (f.from) where.push(`created_at >= ${add(f.from)}`);
  if (f.to) where.push(`created_at < ${add(f.to)}`);
  const cond = where.join(' AND ');
  const [items, count] = await Promise.all([
    db.query<JobRow>(
      `SELECT * FROM send_jobs WHERE ${cond} ORDER BY id DESC LIMIT ${add(limit)} OFFSET ${add(offset)}`,
      params,
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM send_jobs WHERE ${cond}`,
      params.slice(0, params.length - 2),
    ),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

export async function findJob(db: Queryable, accountId: string, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>('SELECT * FROM send_jobs WHERE account_id = $1 AND id = $2', [
    accountId,
    jobId,
  ]);
  return rows[0];
}

/** How many of a send job's messages are in each status, as GET …/messages shows them. */
export interface StatusCount {
  status: string;
  /** Failed by a cancel (error JOB-001). */
  cancelled: boolean;
  n: number;
}

/** Counts of the messages of each job, by the status the API shows (one statement for a page of jobs). */
export async function jobMessageCounts(
  db: Queryable,
  accountId: string,
  jobIds: string[],
): Promise<(StatusCount & { job_id: string })[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await db.query<StatusCount & { job_id: string }>(
    `SELECT job_id, status, cancelled, count(*)::int AS n FROM (
       SELECT m.job_id, ${MESSAGE_STATUS_SQL} AS status,
              coalesce(m.status = 'failed' AND m.error->>'code' = 'JOB-001', false) AS cancelled
       FROM messages m WHERE m.account_id = $1 AND m.job_id = ANY($2::uuid[]) AND m.outgoing) s
     GROUP BY job_id, status, cancelled`,
    [accountId, jobIds],
  );
  return rows;
}

/**
 * Locks the dispatch cursors of a send job (one per quiet-hours hold), as a range claim locks
 * them (lockOpenJob): while held, no dispatcher can hand out more of the job's bulk messages.
 * Call inside a transaction, before any message or job row of the job is locked (the claim's order).
 */
export async function lockJobCursors(db: Queryable, accountId: string, jobId: string): Promise<number> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2 ORDER BY not_before FOR UPDATE',
    [accountId, jobId],
  );
  return rowCount ?? 0;
}

/**
 * Locks and answers the messages of a send job that no dispatcher holds and none can be holding:
 * bulk messages past their hold's cursor (never handed out; lockJobCursors must be held), and
 * one-off or retried messages still `queued` (a claim marks them `sending` under their row lock,
 * so a row a claim is taking is waited for and then re-checked). Messages in a claimed range, or
 * `sending`, may be at a carrier already: they are left alone.
 */
export async function lockUndispatchedMessages(
  db: Queryable,
  accountId: string,
  jobId: string,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT m.id FROM messages m
     WHERE m.account_id = $1 AND m.job_id = $2 AND m.outgoing AND m.status = 'queued'
       AND (NOT m.bulk OR EXISTS (
             SELECT 1 FROM dispatch_cursors d
             WHERE d.account_id = m.account_id AND d.job_id = m.job_id
               AND d.not_before = coalesce(m.not_before, '-infinity')
               AND m.id > coalesce(d.cursor, '00000000-0000-0000-0000-000000000000')))
     ORDER BY m.id FOR UPDATE OF m`,
    [accountId, jobId],
  );
  return rows.map((r) => r.id);
}

/** Closes a send job's cursors (its bulk messages past them were failed by a cancel). */
export async function dropJobCursors(db: Queryable, accountId: string, jobId: string): Promise<void> {
  await db.query('DELETE FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2', [accountId, jobId]);
}

/** Marks a send job cancelled (once); undefined when it already was. */
export async function markSendJobCancelled(
  db: Queryable,
  accountId: string,
  jobId: string,
  by: object,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `UPDATE send_jobs SET cancelled_at = now(), cancelled_by = $3, updated_at = now()
     WHERE account_id = $1 AND id = $2 AND cancelled_at IS NULL RETURNING *`,
    [accountId, jobId, by],
  );
  return rows[0];
}

// ---- bulk contact jobs ----

/**
 * Creates a bulk contact job and takes its selection in one statement: the contacts the
 * `selection` query (its parameters in `values`, `$1` the account) answers. A job selecting nothing
 * is `completed` at once. Answers the job.
 */
export async function insertContactJob(
  db: Queryable,
  accountId: string,
  j: { id: string; request: object; by: object; selection: { text: string; values: unknown[] } },
): Promise<JobRow> {
  const v = j.selection.values;
  const n = v.length;
  const { rows } = await db.query<JobRow>(
    `WITH sel AS (
       INSERT INTO bulk_job_contacts (account_id, job_id, contact_id)
       SELECT DISTINCT $1::uuid, $${n + 1}::uuid, s.contact_id FROM (${j.selection.text}) s WHERE s.contact_id IS NOT NULL
       RETURNING 1
     )
     INSERT INTO send_jobs (account_id, id, kind, status, request, submitted, created_by)
     SELECT $1, $${n + 1}, 'contacts', CASE WHEN count(*) = 0 THEN 'completed' ELSE 'queued' END, $${n + 2}, count(*), $${n + 3}
     FROM sel RETURNING *`,
    // The selection's $1 is the account: this job's, whatever the caller put there.
    [accountId, ...v.slice(1), j.id, j.request, j.by],
  );
  return rows[0];
}

/**
 * Records in a bulk job's `invalid` the ids it was given that named no contact of the account
 * (CONT-002), and answers them.
 */
export async function recordUnselectedIds(
  db: Queryable,
  accountId: string,
  jobId: string,
  ids: string[],
): Promise<unknown[]> {
  const { rows } = await db.query<{ invalid: unknown[] }>(
    `UPDATE send_jobs SET invalid = (
       SELECT coalesce(jsonb_agg(jsonb_build_object('id', w.id,
                'error', $4::jsonb) ORDER BY w.o), '[]')
       FROM unnest($3::uuid[]) WITH ORDINALITY AS w(id, o)
       WHERE NOT EXISTS (SELECT 1 FROM bulk_job_contacts b WHERE b.account_id = $1 AND b.job_id = $2 AND b.contact_id = w.id))
     WHERE account_id = $1 AND id = $2 RETURNING invalid`,
    [accountId, jobId, ids, JSON.stringify(recordedError('CONT-002'))],
  );
  return rows[0]?.invalid ?? [];
}

/**
 * Open bulk contact jobs, oldest first (any account). The row lock is the lease: the chunk's
 * changes and the job's progress commit together, or not at all.
 */
export const CONTACT_JOB_QUEUE: QueueSpec = {
  table: 'send_jobs',
  key: ['account_id', 'id'],
  due: `q.kind = 'contacts' AND q.status IN ('queued', 'running')`,
  order: 'q.created_at',
};

/** Locks the oldest open bulk contact job no other worker holds. */
export async function lockOpenContactJob(db: Queryable): Promise<JobRow | undefined> {
  const [job] = await lockDue<JobRow>(db, CONTACT_JOB_QUEUE, 1);
  return job;
}

/** The next contacts of a bulk job after its cursor, in id order. */
export async function nextJobContacts(db: Queryable, job: JobRow, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ contact_id: string }>(
    `SELECT contact_id FROM bulk_job_contacts
     WHERE account_id = $1 AND job_id = $2 AND contact_id > coalesce($3::uuid, '00000000-0000-0000-0000-000000000000')
     ORDER BY contact_id LIMIT $4`,
    [job.account_id, job.id, job.cursor, limit],
  );
  return rows.map((r) => r.contact_id);
}

/** Records a chunk's progress (its contacts leave the selection); `finished` completes the job. */
export async function advanceContactJob(
  db: Queryable,
  job: JobRow,
  p: { cursor: string | null; done: number; changed: number; failures: number; finished: boolean },
): Promise<void> {
  await db.query(
    `WITH gone AS (
       DELETE FROM bulk_job_contacts WHERE account_id = $1 AND job_id = $2 AND contact_id <= $3::uuid
     )
     UPDATE send_jobs SET cursor = coalesce($3, cursor), done = done + $4, changed = changed + $5,
            failures = failures + $6, status = CASE WHEN $7 THEN 'completed' ELSE 'running' END, updated_at = now()
     WHERE account_id = $1 AND id = $2`,
    [job.account_id, job.id, p.cursor, p.done, p.changed, p.failures, p.finished],
  );
}

/**
 * Cancels an open bulk contact job: waits for a chunk in progress (its row lock) and answers the
 * job; undefined when it is not open (finished, or cancelled already).
 */
export async function cancelContactJob(
  db: Queryable,
  accountId: string,
  jobId: string,
  by: object,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `UPDATE send_jobs SET status = 'cancelled', cancelled_at = now(), cancelled_by = $3, updated_at = now()
     WHERE account_id = $1 AND id = $2 AND kind = 'contacts' AND status IN ('queued', 'running') RETURNING *`,
    [accountId, jobId, by],
  );
  // What was not done is never done: the rest of the selection goes.
  if (rows[0])
    await db.query('DELETE FROM bulk_job_contacts WHERE account_id = $1 AND job_id = $2', [accountId, jobId]);
  return rows[0];
}
