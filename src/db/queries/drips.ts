import type { Queryable } from '../client.ts';
import { assignColumns, type ColumnMap } from './columns.ts';
import { listByName } from './paging.ts';

/** A delay as given and shown: whole days, hours and minutes. */
export interface Delay {
  days: number;
  hours: number;
  minutes: number;
}

/** A Media item of a drip step. */
export interface DripMedia {
  url: string;
  type?: string;
  name?: string;
  filename?: string;
}

/** What starts a drip for a contact. */
export type DripTriggerType = 'list' | 'keyword' | 'contact-created';

/** A drip campaign as stored. */
export interface DripRow {
  account_id: string;
  id: string;
  name: string;
  description: string | null;
  trigger_type: DripTriggerType;
  list_id: string | null;
  keyword: string | null;
  group_id: string | null;
  trigger_delay: Delay;
  max_duration: number | null;
  active: boolean;
  workflow_id: string | null;
  /** When endpoint 18 handed its workflow over (null: not migrated). */
  migrated_at: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** One message of a drip as stored. */
export interface StepRow {
  account_id: string;
  id: string;
  drip_id: string;
  position: number;
  message: string;
  delay: Delay;
  media: DripMedia[];
}

/** The writable fields of a drip; undefined = not given, null = cleared. */
export interface DripFields {
  name?: string;
  description?: string | null;
  triggerType?: DripTriggerType;
  listId?: string | null;
  keyword?: string | null;
  groupId?: string | null;
  triggerDelay?: Delay;
  maxDuration?: number | null;
  active?: boolean;
}

/** A step to store: its id (kept or new), text, delay and media. */
export interface StepInput {
  id: string;
  message: string;
  delay: Delay;
  media: DripMedia[];
}

/** Outcome counts of executions (per drip, or per step they last reached). */
export interface DripStats {
  entered: number;
  active: number;
  errored: number;
  noAction: number;
  optOut: number;
  engaged: number;
}

const COLUMNS: ColumnMap<DripFields> = {
  name: ['name', 'plain'],
  description: ['description', 'plain'],
  triggerType: ['trigger_type', 'plain'],
  listId: ['list_id', 'plain'],
  keyword: ['keyword', 'plain'],
  groupId: ['group_id', 'plain'],
  triggerDelay: ['trigger_delay', 'json'],
  maxDuration: ['max_duration', 'plain'],
  active: ['active', 'plain'],
};

export async function insertDrip(
  db: Queryable,
  accountId: string,
  d: DripFields & { id: string; name: string; triggerType: DripTriggerType; by: object },
): Promise<void> {
  const params: unknown[] = [accountId, d.id, d.by];
  const { cols, vals } = assignColumns(COLUMNS, d, params);
  await db.query(
    `INSERT INTO drip_campaigns (account_id, id, created_by, updated_by, ${cols.join(', ')})
     VALUES ($1, $2, $3, $3, ${vals.join(', ')})`,
    params,
  );
}

/** Sets the given fields only; answers false when the account has no such drip. */
export async function updateDrip(
  db: Queryable,
  accountId: string,
  id: string,
  f: DripFields,
  by: object,
): Promise<boolean> {
  const params: unknown[] = [accountId, id, by];
  const { cols, vals } = assignColumns(COLUMNS, f, params);
  const sets = cols.map((c, i) => `${c} = ${vals[i]}`);
  const { rowCount } = await db.query(
    `UPDATE drip_campaigns SET ${[...sets, 'updated_at = now()', 'updated_by = $3'].join(', ')}
     WHERE account_id = $1 AND id = $2`,
    params,
  );
  return (rowCount ?? 0) > 0;
}

export async function findDrip(
  db: Queryable,
  accountId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<DripRow | undefined> {
  const { rows } = await db.query<DripRow>(
    `SELECT * FROM drip_campaigns WHERE account_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, id],
  );
  return rows[0];
}

/** Deletes a drip with its steps, and its workflow unless that was handed over (endpoint 18). */
export async function deleteDrip(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `WITH d AS (DELETE FROM drip_campaigns WHERE account_id = $1 AND id = $2 RETURNING id),
          w AS (DELETE FROM workflows WHERE account_id = $1 AND id IN (SELECT id FROM d) AND drip)
     SELECT count(*)::int AS n FROM d`,
    [accountId, id],
  );
  return rows[0].n > 0;
}

/** One page of the account's drips, newest first (optionally by partial name), with the total. */
export async function listDrips(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: DripRow[]; total: number }> {
  return listByName<DripRow>(db, 'drip_campaigns', accountId, filter, page);
}

/** The steps of the given drips, in order. */
export async function stepsOf(db: Queryable, accountId: string, dripIds: string[]): Promise<StepRow[]> {
  if (dripIds.length === 0) return [];
  const { rows } = await db.query<StepRow>(
    `SELECT * FROM drip_steps WHERE account_id = $1 AND drip_id = ANY($2::uuid[]) ORDER BY drip_id, position`,
    [accountId, dripIds],
  );
  return rows;
}

/** Replaces a drip's steps with the given ones, in order (ids the caller kept stay). */
export async function replaceSteps(
  db: Queryable,
  accountId: string,
  dripId: string,
  steps: StepInput[],
): Promise<void> {
  await db.query('DELETE FROM drip_steps WHERE account_id = $1 AND drip_id = $2', [accountId, dripId]);
  await db.query(
    `INSERT INTO drip_steps (account_id, id, drip_id, position, message, delay, media)
     SELECT $1, (s.v ->> 'id')::uuid, $2, s.ord - 1, s.v ->> 'message', s.v -> 'delay', s.v -> 'media'
       FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS s(v, ord)`,
    [accountId, dripId, JSON.stringify(steps)],
  );
}

/**
 * The drip's runs: those of its workflow (the one with the drip's id) that entered before it was
 * migrated (later ones are the handed-over workflow's). Joins `r` (workflow_runs) to `d` (drip_campaigns).
 */
const DRIP_RUNS = `workflow_runs r JOIN drip_campaigns d ON d.account_id = r.account_id AND d.id = r.workflow_id
  AND (d.migrated_at IS NULL OR r.entered_at <= d.migrated_at)`;

/**
 * Whether a drip's run has sent its last message: it is at the drip's end node, where it only
 * waits out the reply window (a reply there makes it `engaged`).
 */
const AFTER_LAST_MESSAGE = `(r.status IN ('active', 'waiting') AND r.node_id = 'end')`;

/**
 * A run's status as a drip execution shows it: one that sent its last message is `completed` (not
 * `active` with a step due), unless a reply within the reply window makes it `engaged`.
 */
const EXECUTION_STATUS = `(CASE WHEN ${AFTER_LAST_MESSAGE} THEN 'completed'
  WHEN r.status IN ('active', 'waiting') THEN 'active'
  ELSE coalesce(r.end_reason, r.status) END)`;

const OUTCOMES = `count(*) FILTER (WHERE s = 'active')::int AS active,
  count(*) FILTER (WHERE s = 'errored')::int AS errored,
  count(*) FILTER (WHERE s = 'completed')::int AS "noAction",
  count(*) FILTER (WHERE s = 'opted-out')::int AS "optOut",
  count(*) FILTER (WHERE s = 'engaged')::int AS engaged`;

/** Stats per drip, from its executions (drips without any are absent). */
export async function dripStats(
  db: Queryable,
  accountId: string,
  dripIds: string[],
): Promise<Map<string, DripStats>> {
  if (dripIds.length === 0) return new Map();
  const { rows } = await db.query<DripStats & { drip_id: string }>(
    `SELECT drip_id, count(*)::int AS entered, ${OUTCOMES}
       FROM (SELECT d.id AS drip_id, ${EXECUTION_STATUS} AS s FROM ${DRIP_RUNS}
              WHERE r.account_id = $1 AND d.id = ANY($2::uuid[])) x
      GROUP BY drip_id`,
    [accountId, dripIds],
  );
  return new Map(rows.map(({ drip_id, ...s }) => [drip_id, s]));
}

/**
 * Stats per message: `entered` counts the executions that reached it (sent or tried it); the
 * outcomes count executions whose last message it is (e.g. engaged = replied after this message).
 * A send node is a message through its version's `drip_steps`.
 */
export async function stepStats(
  db: Queryable,
  accountId: string,
  dripIds: string[],
): Promise<Map<string, DripStats>> {
  if (dripIds.length === 0) return new Map();
  const { rows } = await db.query<DripStats & { step_id: string }>(
    `WITH sends AS (
       SELECT r.id AS run_id, ${EXECUTION_STATUS} AS s, ws.step, v.drip_steps ->> ws.node_id AS step_id
         FROM ${DRIP_RUNS}
         JOIN workflow_versions v ON v.account_id = r.account_id AND v.id = r.version_id
         JOIN workflow_steps ws ON ws.account_id = r.account_id AND ws.run_id = r.id
        WHERE r.account_id = $1 AND d.id = ANY($2::uuid[]) AND v.drip_steps ? ws.node_id),
     reached AS (SELECT step_id, count(DISTINCT run_id)::int AS entered FROM sends GROUP BY step_id),
     last AS (SELECT DISTINCT ON (run_id) run_id, s, step_id FROM sends ORDER BY run_id, step DESC),
     outcomes AS (SELECT step_id, ${OUTCOMES} FROM last GROUP BY step_id)
     SELECT r.step_id, r.entered, coalesce(o.active, 0) AS active, coalesce(o.errored, 0) AS errored,
            coalesce(o."noAction", 0) AS "noAction", coalesce(o."optOut", 0) AS "optOut",
            coalesce(o.engaged, 0) AS engaged
       FROM reached r LEFT JOIN outcomes o USING (step_id)`,
    [accountId, dripIds],
  );
  return new Map(rows.map(({ step_id, ...s }) => [step_id, s]));
}

/** Records that a drip was migrated into a workflow (endpoint 18) and deactivates the drip. */
export async function markDripMigrated(
  db: Queryable,
  accountId: string,
  dripId: string,
  workflowId: string,
  by: object,
): Promise<void> {
  await db.query(
    `UPDATE drip_campaigns SET workflow_id = $3, migrated_at = now(), active = false, updated_at = now(), updated_by = $4
     WHERE account_id = $1 AND id = $2`,
    [accountId, dripId, workflowId, by],
  );
}

/** A drip execution: one of its runs, as stored, with its status and messages sent as a drip counts them. */
export interface ExecutionRow {
  id: string;
  contact_id: string;
  version_id: string;
  status: 'active' | 'completed' | 'engaged' | 'opted-out' | 'errored' | 'stopped' | 'expired';
  entered_at: Date;
  ended_at: Date | null;
  due_at: Date | null;
  steps_sent: number;
  error: { code: string; description: string } | null;
}

/** Filters of a drip's executions (endpoint 17). */
export interface ExecutionFilter {
  contactId?: string;
  status?: string;
  versionId?: string;
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
  let cond = 'r.account_id = $1 AND d.id = $2';
  if (filter.contactId !== undefined) {
    params.push(filter.contactId);
    cond += ` AND r.contact_id = $${params.length}`;
  }
  if (filter.status !== undefined) {
    params.push(filter.status);
    cond += ` AND ${EXECUTION_STATUS} = $${params.length}`;
  }
  if (filter.versionId !== undefined) {
    params.push(filter.versionId);
    cond += ` AND r.version_id = $${params.length}`;
  }
  // One statement, so the execution and the count come from the same snapshot.
  const { rows } = await db.query<ExecutionRow & { total: number }>(
    `SELECT t.total, e.* FROM (SELECT count(*)::int AS total FROM ${DRIP_RUNS} WHERE ${cond}) t
     LEFT JOIN LATERAL (
       SELECT r.id, r.contact_id, r.version_id, ${EXECUTION_STATUS} AS status, r.entered_at,
              coalesce(r.ended_at, CASE WHEN ${AFTER_LAST_MESSAGE} THEN coalesce(r.waiting_since, r.updated_at) END)
                AS ended_at,
              CASE WHEN r.status IN ('active', 'waiting') AND NOT ${AFTER_LAST_MESSAGE} THEN r.due_at END AS due_at,
              CASE WHEN r.status = 'errored' THEN r.error END AS error,
              (SELECT count(*)::int FROM workflow_steps ws
                 JOIN workflow_versions v ON v.account_id = r.account_id AND v.id = r.version_id
                WHERE ws.account_id = r.account_id AND ws.run_id = r.id AND v.drip_steps ? ws.node_id
                  AND NOT ws.outcome ? 'error') AS steps_sent
         FROM ${DRIP_RUNS} WHERE ${cond} ORDER BY r.entered_at DESC, r.id DESC LIMIT 1 OFFSET $${params.length + 1}
     ) e ON true`,
    [...params, offset],
  );
  const { total, ...row } = rows[0];
  return { row: row.id ? (row as ExecutionRow) : undefined, total };
}
