import type { Queryable } from '../client.ts';
import type { Delay, DripRow } from './drips.ts';

/** A cause waiting in the entry queue (written by the database triggers of migration 0080). */
export interface EntryRow {
  seq: number;
  account_id: string;
  kind: 'list-joined' | 'contact-created' | 'message-received' | 'contact-opt-out';
  contact_id: string;
  list_id: string | null;
  message_id: string | null;
  text: string | null;
  at: Date;
}

/** An execution as stored. */
export interface ExecutionRow {
  account_id: string;
  id: string;
  drip_id: string;
  contact_id: string;
  status: 'active' | 'completed' | 'engaged' | 'opted-out' | 'errored' | 'stopped' | 'expired';
  next_position: number;
  due_at: Date | null;
  claimed_until: Date | null;
  last_step_id: string | null;
  trigger_message_id: string | null;
  error: { code: string; description: string } | null;
  entered_at: Date;
  ended_at: Date | null;
}

/** SQL interval of a stored Delay expression. */
const interval = (expr: string) =>
  `make_interval(days => (${expr} ->> 'days')::int, hours => (${expr} ->> 'hours')::int, mins => (${expr} ->> 'minutes')::int)`;

/**
 * Worker claim across accounts: takes (deletes) the oldest `limit` causes no other worker holds.
 * Call it inside the transaction that processes them, so a crash puts them back.
 */
export async function takeEntries(tx: Queryable, limit: number): Promise<EntryRow[]> {
  const { rows } = await tx.query<EntryRow>(
    `DELETE FROM drip_entry_queue WHERE seq IN (
       SELECT seq FROM drip_entry_queue ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [limit],
  );
  return rows.sort((a, b) => a.seq - b.seq);
}

/** The active drips of an account a cause can start (a list's, a keyword's, or new-contact ones). */
export async function activeDripsFor(
  db: Queryable,
  accountId: string,
  trigger:
    | { type: 'list'; listId: string }
    | { type: 'keyword'; keyword: string }
    | { type: 'contact-created' },
): Promise<DripRow[]> {
  const params: unknown[] = [accountId, trigger.type];
  let cond = '';
  if (trigger.type === 'list') {
    params.push(trigger.listId);
    cond = ' AND list_id = $3';
  } else if (trigger.type === 'keyword') {
    params.push(trigger.keyword);
    cond = ' AND keyword = $3';
  }
  const { rows } = await db.query<DripRow>(
    `SELECT * FROM drip_campaigns WHERE account_id = $1 AND active AND trigger_type = $2${cond}`,
    params,
  );
  return rows;
}

/** Whether the contact can be texted at all: exists, not opted out, not blocked. */
export async function contactReachable(
  db: Queryable,
  accountId: string,
  contactId: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM contacts WHERE account_id = $1 AND id = $2 AND opted_out_at IS NULL AND blocked_at IS NULL`,
    [accountId, contactId],
  );
  return rows.length > 0;
}

/**
 * Enters a contact into a drip, first step due after the drip's trigger delay from `at` (capped
 * by maxDuration). Nothing happens when the contact already has an active execution of it.
 * Answers whether an execution was created.
 */
export async function insertExecution(
  db: Queryable,
  accountId: string,
  e: { id: string; drip: DripRow; contactId: string; at: Date; triggerMessageId?: string | null },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO drip_executions (account_id, id, drip_id, contact_id, entered_at, due_at, trigger_message_id)
     SELECT $1, $2, d.id, $4, $5::timestamptz,
            least($5::timestamptz + ${interval('d.trigger_delay')},
                  $5::timestamptz + make_interval(days => d.max_duration)), $6
       FROM drip_campaigns d WHERE d.account_id = $1 AND d.id = $3 AND d.active
     ON CONFLICT (account_id, drip_id, contact_id) WHERE status = 'active' DO NOTHING`,
    [accountId, e.id, e.drip.id, e.contactId, e.at, e.triggerMessageId ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Ends the contact's active executions that began before `at` (or at it, when `inclusive`) with
 * `status` (a reply: engaged; an opt-out: opted-out), except those of `exceptDripIds`. A cause
 * never counts against executions that began in its own transaction unless inclusive.
 */
export async function endContactExecutions(
  db: Queryable,
  accountId: string,
  contactId: string,
  status: 'engaged' | 'opted-out',
  at: Date,
  opts: { inclusive?: boolean; exceptDripIds?: string[] } = {},
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE drip_executions SET status = $3, due_at = NULL, claimed_until = NULL, ended_at = now()
     WHERE account_id = $1 AND contact_id = $2 AND status = 'active'
       AND (entered_at < $4 OR ($6 AND entered_at = $4))
       AND NOT (drip_id = ANY($5::uuid[]))`,
    [accountId, contactId, status, at, opts.exceptDripIds ?? [], opts.inclusive ?? false],
  );
  return rowCount ?? 0;
}

/**
 * Worker claim across accounts: active executions whose due time has come and whose lease is free
 * or expired get a lease of leaseSeconds.
 */
export async function claimDueExecutions(
  db: Queryable,
  limit: number,
  leaseSeconds: number,
): Promise<ExecutionRow[]> {
  const { rows } = await db.query<ExecutionRow>(
    `WITH due AS (
       SELECT account_id, id FROM drip_executions
        WHERE status = 'active' AND due_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
        ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     UPDATE drip_executions e SET claimed_until = now() + make_interval(secs => $2)
       FROM due WHERE e.account_id = due.account_id AND e.id = due.id
     RETURNING e.*`,
    [limit, leaseSeconds],
  );
  return rows;
}

/** An execution under a row lock, for the transaction that runs its step. */
export async function lockExecution(
  tx: Queryable,
  accountId: string,
  id: string,
): Promise<ExecutionRow | undefined> {
  const { rows } = await tx.query<ExecutionRow>(
    'SELECT * FROM drip_executions WHERE account_id = $1 AND id = $2 FOR UPDATE',
    [accountId, id],
  );
  return rows[0];
}

/** Whether the contact sent us any text since `since` (other than the one that started the drip). */
export async function hasReplySince(
  db: Queryable,
  accountId: string,
  contactId: string,
  since: Date,
  exceptMessageId: string | null,
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM messages
      WHERE account_id = $1 AND contact_id = $2 AND NOT outgoing AND created_at > $3
        AND id IS DISTINCT FROM $4::uuid LIMIT 1`,
    [accountId, contactId, since, exceptMessageId],
  );
  return rows.length > 0;
}

/**
 * Records that an execution reached a step; false when that step slot was already recorded for
 * it (the step then is not sent again).
 */
export async function insertStepSend(
  tx: Queryable,
  accountId: string,
  s: { executionId: string; position: number; stepId: string },
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO drip_step_sends (account_id, execution_id, position, step_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    [accountId, s.executionId, s.position, s.stepId],
  );
  return (rowCount ?? 0) > 0;
}

/** Stores what became of a step send: the queued message, or the failure that kept it from queueing. */
export async function setStepSendOutcome(
  tx: Queryable,
  accountId: string,
  executionId: string,
  position: number,
  outcome: { messageId: string | null; error: { code: string; description: string } | null },
): Promise<void> {
  await tx.query(
    `UPDATE drip_step_sends SET message_id = $4, error = $5 WHERE account_id = $1 AND execution_id = $2 AND position = $3`,
    [
      accountId,
      executionId,
      position,
      outcome.messageId,
      outcome.error ? JSON.stringify(outcome.error) : null,
    ],
  );
}

/**
 * Moves an execution past a step: next position, last step, and the next due time (`delay` after
 * now, capped by the drip's maxDuration from entry); releases the lease.
 */
export async function advanceExecution(
  tx: Queryable,
  accountId: string,
  id: string,
  a: { nextPosition: number; lastStepId: string | null; delay: Delay; maxDuration: number | null },
): Promise<void> {
  await tx.query(
    `UPDATE drip_executions
        SET next_position = $3, last_step_id = coalesce($4::uuid, last_step_id), claimed_until = NULL,
            due_at = least(now() + ${interval('$5::jsonb')}, entered_at + make_interval(days => $6::int))
      WHERE account_id = $1 AND id = $2`,
    [accountId, id, a.nextPosition, a.lastStepId, JSON.stringify(a.delay), a.maxDuration],
  );
}

/** Ends an execution with a final status (and the failure, for `errored`). */
export async function endExecution(
  tx: Queryable,
  accountId: string,
  id: string,
  status: Exclude<ExecutionRow['status'], 'active'>,
  opts: { lastStepId?: string; error?: { code: string; description: string } } = {},
): Promise<void> {
  await tx.query(
    `UPDATE drip_executions
        SET status = $3, due_at = NULL, claimed_until = NULL, ended_at = now(),
            last_step_id = coalesce($4::uuid, last_step_id), error = coalesce($5::jsonb, error)
      WHERE account_id = $1 AND id = $2`,
    [accountId, id, status, opts.lastStepId ?? null, opts.error ? JSON.stringify(opts.error) : null],
  );
}

/** Filters of a drip's executions (endpoint 17). */
export interface ExecutionFilter {
  contactId?: string;
  status?: string;
}

/** The execution at `offset` of a drip's executions, newest first, and how many match. */
export async function executionAt(
  db: Queryable,
  accountId: string,
  dripId: string,
  filter: ExecutionFilter,
  offset: number,
): Promise<{ row: ExecutionRow | undefined; total: number }> {
  const params: unknown[] = [accountId, dripId];
  let cond = 'account_id = $1 AND drip_id = $2';
  if (filter.contactId !== undefined) {
    params.push(filter.contactId);
    cond += ` AND contact_id = $${params.length}`;
  }
  if (filter.status !== undefined) {
    params.push(filter.status);
    cond += ` AND status = $${params.length}`;
  }
  // One statement, so the execution and the count come from the same snapshot (two queries could
  // answer an older execution as the newest while counting one that committed in between).
  const { rows } = await db.query<ExecutionRow & { total: number }>(
    `SELECT t.total, e.* FROM (SELECT count(*)::int AS total FROM drip_executions WHERE ${cond}) t
     LEFT JOIN LATERAL (
       SELECT * FROM drip_executions WHERE ${cond} ORDER BY entered_at DESC, id DESC LIMIT 1 OFFSET $${params.length + 1}
     ) e ON true`,
    [...params, offset],
  );
  const { total, ...row } = rows[0];
  return { row: row.id ? (row as ExecutionRow) : undefined, total };
}
