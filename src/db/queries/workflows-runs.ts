import type { Queryable } from '../client.ts';
import type { QueueSpec } from './claim.ts';
import type { VersionRow } from './workflows.ts';

/** A run's status: live (`active`, `waiting`) or ended (`completed`, `stopped`, `errored`). */
export type RunStatus = 'active' | 'waiting' | 'completed' | 'stopped' | 'errored';

/** A run (one enrollment of a contact) as stored. */
export interface RunRow {
  account_id: string;
  id: string;
  workflow_id: string;
  version_id: string;
  contact_id: string;
  status: RunStatus;
  node_id: string;
  step: number;
  due_at: Date | null;
  claimed_until: Date | null;
  claim_token: string | null;
  /** Claims of the current step that did not complete (the backoff of a failed one grows with it). */
  attempts: number;
  waiting_for: 'delay' | 'reply' | null;
  waiting_since: Date | null;
  wait_until: Date | null;
  trigger: string;
  error: { code: string; description: string } | null;
  /** How a stopped run ended: a drip's `engaged` / `opted-out`, or `expired` (maxDuration). */
  end_reason: EndReason | null;
  entered_at: Date;
  updated_at: Date;
  ended_at: Date | null;
}

/** Why a run stopped, beyond `stopped`. */
export type EndReason = 'engaged' | 'opted-out' | 'expired';

/** A queued cause of enrollments or wake-ups (filled by the database triggers of 0090). */
export interface TriggerQueueRow {
  id: string;
  account_id: string;
  kind: 'contact-created' | 'message-received' | 'contact-opt-out' | 'list-joined';
  contact_id: string;
  list_id: string | null;
  text: string | null;
  attempts: number;
  due_at: Date;
  created_at: Date;
}

/** The account's active versions (the ones contacts enter), each with whether it is a drip's. */
export async function activeVersions(
  db: Queryable,
  accountId: string,
): Promise<(VersionRow & { drip: boolean; workflow_name: string })[]> {
  const { rows } = await db.query<VersionRow & { drip: boolean; workflow_name: string }>(
    `SELECT v.*, w.drip, w.name AS workflow_name FROM workflow_versions v
       JOIN workflows w ON w.account_id = v.account_id AND w.id = v.workflow_id
      WHERE v.account_id = $1 AND v.active_at IS NOT NULL`,
    [accountId],
  );
  return rows;
}

/** Whether the contact ever entered the workflow (for triggers without re-enrollment). */
export async function hasEverEntered(
  db: Queryable,
  accountId: string,
  workflowId: string,
  contactId: string,
): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM workflow_runs WHERE account_id = $1 AND workflow_id = $2 AND contact_id = $3 LIMIT 1',
    [accountId, workflowId, contactId],
  );
  return rows.length > 0;
}

/**
 * Starts a run at the version's trigger node, due now, and freezes the version (readonly). Answers
 * the run, or undefined when the contact has a live run of this workflow already.
 */
export async function insertRun(
  db: Queryable,
  accountId: string,
  r: {
    id: string;
    workflowId: string;
    versionId: string;
    contactId: string;
    nodeId: string;
    trigger: string;
  },
): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(
    `INSERT INTO workflow_runs (account_id, id, workflow_id, version_id, contact_id, node_id, trigger, due_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now())
     ON CONFLICT (account_id, workflow_id, contact_id) WHERE status IN ('active', 'waiting') DO NOTHING
     RETURNING *`,
    [accountId, r.id, r.workflowId, r.versionId, r.contactId, r.nodeId, r.trigger],
  );
  if (rows[0]) {
    await db.query(
      'UPDATE workflow_versions SET readonly = true WHERE account_id = $1 AND id = $2 AND NOT readonly',
      [accountId, r.versionId],
    );
  }
  return rows[0];
}

/**
 * How many times the contact entered the account's workflows (every run, drips included) in the
 * last `minutes` and in the last `longMinutes` (one index range: workflow_runs_contact_entered).
 */
export async function recentEntries(
  db: Queryable,
  accountId: string,
  contactId: string,
  minutes: number,
  longMinutes: number,
): Promise<{ recent: number; long: number }> {
  const { rows } = await db.query<{ recent: number; long: number }>(
    `SELECT count(*) FILTER (WHERE entered_at > now() - make_interval(mins => $3::int))::int AS recent,
            count(*)::int AS long
       FROM workflow_runs
      WHERE account_id = $1 AND contact_id = $2 AND entered_at > now() - make_interval(mins => $4::int)`,
    [accountId, contactId, minutes, longMinutes],
  );
  return rows[0] ?? { recent: 0, long: 0 };
}

/** Whether the contact has a live run of the workflow. */
export async function hasLiveRun(
  db: Queryable,
  accountId: string,
  workflowId: string,
  contactId: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM workflow_runs WHERE account_id = $1 AND workflow_id = $2 AND contact_id = $3
        AND status IN ('active', 'waiting') LIMIT 1`,
    [accountId, workflowId, contactId],
  );
  return rows.length > 0;
}

/**
 * Records an entry that was refused as a run that is stopped at once (at the trigger node, with
 * `error`): the refusal is seen where the runs are (GET …/enrollments, the console's Runs).
 */
export async function insertStoppedRun(
  db: Queryable,
  accountId: string,
  r: {
    id: string;
    workflowId: string;
    versionId: string;
    contactId: string;
    nodeId: string;
    trigger: string;
  },
  error: { code: string; description: string },
): Promise<RunRow> {
  const { rows } = await db.query<RunRow>(
    `INSERT INTO workflow_runs (account_id, id, workflow_id, version_id, contact_id, node_id, trigger,
                                status, due_at, error, ended_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'stopped', NULL, $8, now())
     RETURNING *`,
    [accountId, r.id, r.workflowId, r.versionId, r.contactId, r.nodeId, r.trigger, JSON.stringify(error)],
  );
  return rows[0] as RunRow;
}

/**
 * Ends the contact's live runs (all workflows, or one) as stopped with the given reason; runs of a
 * drip's workflow record `dripReason` as their end reason (an opt-out: `opted-out`).
 */
export async function stopRuns(
  db: Queryable,
  accountId: string,
  by: { contactId?: string; workflowId?: string },
  error: { code: string; description: string } | null,
  dripReason: EndReason | null = null,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE workflow_runs r SET status = 'stopped', error = $4, due_at = NULL, claimed_until = NULL,
            claim_token = NULL, ended_at = now(), updated_at = now(),
            end_reason = CASE WHEN $5::text IS NOT NULL AND EXISTS (
                           SELECT 1 FROM workflows w WHERE w.account_id = r.account_id AND w.id = r.workflow_id AND w.drip)
                         THEN $5::text END
     WHERE r.account_id = $1 AND r.status IN ('active', 'waiting')
       AND ($2::uuid IS NULL OR r.contact_id = $2) AND ($3::uuid IS NULL OR r.workflow_id = $3)`,
    [
      accountId,
      by.contactId ?? null,
      by.workflowId ?? null,
      error ? JSON.stringify(error) : null,
      dripReason,
    ],
  );
  return rowCount ?? 0;
}

/**
 * A reply: ends the contact's live runs of drips (not of other workflows) that entered before
 * `before` as engaged, except those of `exceptWorkflowIds` (the drips this text is the keyword of).
 */
export async function endDripRunsOnReply(
  db: Queryable,
  accountId: string,
  contactId: string,
  before: Date,
  exceptWorkflowIds: string[],
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE workflow_runs r SET status = 'stopped', end_reason = 'engaged', due_at = NULL, claimed_until = NULL,
            claim_token = NULL, ended_at = now(), updated_at = now()
       FROM workflows w
      WHERE w.account_id = r.account_id AND w.id = r.workflow_id AND w.drip
        AND r.account_id = $1 AND r.contact_id = $2 AND r.status IN ('active', 'waiting')
        AND r.entered_at < $3 AND NOT (r.workflow_id = ANY ($4::uuid[]))`,
    [accountId, contactId, before, exceptWorkflowIds],
  );
  return rowCount ?? 0;
}

/** A run as it stands now (in the caller's transaction). */
export async function currentRun(
  db: Queryable,
  accountId: string,
  runId: string,
): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>('SELECT * FROM workflow_runs WHERE account_id = $1 AND id = $2', [
    accountId,
    runId,
  ]);
  return rows[0];
}

/**
 * Moves a workflow's live runs onto `versionId` when the node they are at exists there (a drip
 * edited while contacts run it: they go on at the same position of the new messages).
 */
export async function moveLiveRuns(
  db: Queryable,
  accountId: string,
  workflowId: string,
  versionId: string,
  nodeIds: string[],
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE workflow_runs SET version_id = $3, updated_at = now()
      WHERE account_id = $1 AND workflow_id = $2 AND status IN ('active', 'waiting')
        AND version_id <> $3 AND node_id = ANY ($4::text[])`,
    [accountId, workflowId, versionId, nodeIds],
  );
  if ((rowCount ?? 0) > 0) {
    await db.query(
      'UPDATE workflow_versions SET readonly = true WHERE account_id = $1 AND id = $2 AND NOT readonly',
      [accountId, versionId],
    );
  }
  return rowCount ?? 0;
}

/** Makes the contact's runs that wait for a reply due now (the runner decides which edge). */
export async function wakeReplyWaiters(db: Queryable, accountId: string, contactId: string): Promise<void> {
  await db.query(
    `UPDATE workflow_runs SET due_at = now(), updated_at = now()
     WHERE account_id = $1 AND contact_id = $2 AND status = 'waiting' AND waiting_for = 'reply'`,
    [accountId, contactId],
  );
}

/** The queue of causes (written by triggers in each cause's transaction), locked while handled. */
export const TRIGGER_QUEUE: QueueSpec = {
  table: 'workflow_trigger_queue',
  key: ['account_id', 'id'],
  due: 'q.due_at <= now()',
  order: 'q.id',
  attempts: 'attempts',
  retryAt: 'due_at',
};

/** Removes a handled cause. */
export async function deleteQueued(db: Queryable, accountId: string, id: string): Promise<void> {
  await db.query('DELETE FROM workflow_trigger_queue WHERE account_id = $1 AND id = $2', [accountId, id]);
}

/**
 * The queue of due runs (timers are rows: `due_at`), leased with a claim token; a failed attempt
 * comes due again after the backoff, a completed step starts the count again (updateRun).
 */
export const RUN_QUEUE: QueueSpec = {
  table: 'workflow_runs',
  key: ['account_id', 'id'],
  due: `q.status IN ('active', 'waiting') AND q.due_at <= now()`,
  order: 'q.due_at',
  lease: { until: 'claimed_until', token: 'claim_token' },
  attempts: 'attempts',
  retryAt: 'due_at',
};

/** The run, locked, if the claim `token` still holds it and it is live. */
export async function lockClaimedRun(
  db: Queryable,
  accountId: string,
  runId: string,
  token: string,
): Promise<RunRow | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT * FROM workflow_runs WHERE account_id = $1 AND id = $2 AND claim_token = $3
       AND status IN ('active', 'waiting') FOR UPDATE`,
    [accountId, runId, token],
  );
  return rows[0];
}

/** The run's next state after a step; the lease stays with the claim while it keeps running. */
export interface RunUpdate {
  status: RunStatus;
  nodeId: string;
  step: number;
  /** Seconds from now until due (null: not due; 0: now). */
  dueInSeconds: number | null;
  waitingFor?: 'delay' | 'reply' | null;
  /** Seconds from now until the wait ends. */
  waitSeconds?: number | null;
  error?: { code: string; description: string } | null;
  /** How a stopped run ended (see EndReason). */
  endReason?: EndReason | null;
  /** The trigger's maxDuration in days: no timer runs past entry + this. */
  capDays?: number | null;
  /** Release the lease (the run waits or ended). */
  release: boolean;
}

export async function updateRun(
  db: Queryable,
  accountId: string,
  runId: string,
  u: RunUpdate,
): Promise<void> {
  const ended = u.status === 'completed' || u.status === 'stopped' || u.status === 'errored';
  const waiting = u.waitingFor ?? null;
  await db.query(
    `UPDATE workflow_runs SET status = $3, node_id = $4, step = $5,
            due_at = CASE WHEN $6::float8 IS NULL THEN NULL
                          ELSE least(now() + make_interval(secs => $6::float8),
                                     entered_at + make_interval(days => $12::int)) END,
            waiting_for = $7,
            waiting_since = CASE WHEN $7::text IS NULL THEN NULL ELSE coalesce(waiting_since, now()) END,
            wait_until = CASE WHEN $7::text IS NULL THEN NULL
                              WHEN $8::float8 IS NULL THEN wait_until
                              ELSE least(now() + make_interval(secs => $8::float8),
                                         entered_at + make_interval(days => $12::int)) END,
            error = coalesce($9::jsonb, error), end_reason = coalesce($13::text, end_reason),
            claimed_until = CASE WHEN $10 THEN NULL ELSE claimed_until END,
            claim_token = CASE WHEN $10 THEN NULL ELSE claim_token END,
            attempts = CASE WHEN $10 THEN 0 ELSE attempts END,
            ended_at = CASE WHEN $11 THEN now() ELSE ended_at END, updated_at = now()
     WHERE account_id = $1 AND id = $2`,
    [
      accountId,
      runId,
      u.status,
      u.nodeId,
      u.step,
      u.dueInSeconds,
      waiting,
      u.waitSeconds ?? null,
      u.error ? JSON.stringify(u.error) : null,
      u.release || ended,
      ended,
      u.capDays ?? null,
      u.endReason ?? null,
    ],
  );
}

/** Records a step; answers false when the step key (run, step) exists already (a retried step). */
export async function insertStep(
  db: Queryable,
  accountId: string,
  s: { runId: string; step: number; nodeId: string; outcome: object },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO workflow_steps (account_id, run_id, step, node_id, outcome) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, run_id, step) DO NOTHING`,
    [accountId, s.runId, s.step, s.nodeId, JSON.stringify(s.outcome)],
  );
  return (rowCount ?? 0) > 0;
}

/** The outcome recorded for a step, if it ran. */
export async function findStep(
  db: Queryable,
  accountId: string,
  runId: string,
  step: number,
): Promise<{ node_id: string; outcome: Record<string, unknown> } | undefined> {
  const { rows } = await db.query<{ node_id: string; outcome: Record<string, unknown> }>(
    'SELECT node_id, outcome FROM workflow_steps WHERE account_id = $1 AND run_id = $2 AND step = $3',
    [accountId, runId, step],
  );
  return rows[0];
}

/** Whether the contact sent us a text at or after `since`. */
export async function repliedSince(
  db: Queryable,
  accountId: string,
  contactId: string,
  since: Date,
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM messages WHERE account_id = $1 AND contact_id = $2 AND NOT outgoing AND created_at >= $3
     LIMIT 1`,
    [accountId, contactId, since],
  );
  return rows.length > 0;
}

/** One page of a workflow's runs, newest first (optionally by status), with the total. */
export async function listRuns(
  db: Queryable,
  accountId: string,
  workflowId: string,
  filter: { status?: RunStatus; contactId?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: RunRow[]; total: number }> {
  const params: unknown[] = [accountId, workflowId, filter.status ?? null, filter.contactId ?? null];
  const cond = `account_id = $1 AND workflow_id = $2 AND ($3::text IS NULL OR status = $3)
    AND ($4::uuid IS NULL OR contact_id = $4)`;
  const [items, count] = await Promise.all([
    db.query<RunRow>(
      `SELECT * FROM workflow_runs WHERE ${cond} ORDER BY entered_at DESC, id DESC LIMIT $5 OFFSET $6`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_runs WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
