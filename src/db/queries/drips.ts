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

export async function deleteDrip(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM drip_campaigns WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
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

const OUTCOMES = `count(*) FILTER (WHERE status = 'active')::int AS active,
  count(*) FILTER (WHERE status = 'errored')::int AS errored,
  count(*) FILTER (WHERE status = 'completed')::int AS "noAction",
  count(*) FILTER (WHERE status = 'opted-out')::int AS "optOut",
  count(*) FILTER (WHERE status = 'engaged')::int AS engaged`;

/** Stats per drip, from its executions (drips without any are absent). */
export async function dripStats(
  db: Queryable,
  accountId: string,
  dripIds: string[],
): Promise<Map<string, DripStats>> {
  if (dripIds.length === 0) return new Map();
  const { rows } = await db.query<DripStats & { drip_id: string }>(
    `SELECT drip_id, count(*)::int AS entered, ${OUTCOMES}
       FROM drip_executions WHERE account_id = $1 AND drip_id = ANY($2::uuid[]) GROUP BY drip_id`,
    [accountId, dripIds],
  );
  return new Map(rows.map(({ drip_id, ...s }) => [drip_id, s]));
}

/**
 * Stats per step: `entered` counts the executions that reached the step (sent or tried it); the
 * outcomes count executions whose last step it is (e.g. engaged = replied after this message).
 */
export async function stepStats(
  db: Queryable,
  accountId: string,
  dripIds: string[],
): Promise<Map<string, DripStats>> {
  if (dripIds.length === 0) return new Map();
  const { rows } = await db.query<DripStats & { step_id: string }>(
    `WITH reached AS (
       SELECT s.step_id, count(*)::int AS entered
         FROM drip_step_sends s JOIN drip_steps st ON st.account_id = s.account_id AND st.id = s.step_id
        WHERE s.account_id = $1 AND st.drip_id = ANY($2::uuid[]) GROUP BY s.step_id),
     outcomes AS (
       SELECT last_step_id AS step_id, ${OUTCOMES}
         FROM drip_executions
        WHERE account_id = $1 AND drip_id = ANY($2::uuid[]) AND last_step_id IS NOT NULL
        GROUP BY last_step_id)
     SELECT r.step_id, r.entered, coalesce(o.active, 0) AS active, coalesce(o.errored, 0) AS errored,
            coalesce(o."noAction", 0) AS "noAction", coalesce(o."optOut", 0) AS "optOut",
            coalesce(o.engaged, 0) AS engaged
       FROM reached r LEFT JOIN outcomes o USING (step_id)`,
    [accountId, dripIds],
  );
  return new Map(rows.map(({ step_id, ...s }) => [step_id, s]));
}

/** Ends a drip's active executions as `stopped` (their pending steps are never sent); answers how many. */
export async function stopDripExecutions(db: Queryable, accountId: string, dripId: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE drip_executions SET status = 'stopped', due_at = NULL, claimed_until = NULL, ended_at = now()
     WHERE account_id = $1 AND drip_id = $2 AND status = 'active'`,
    [accountId, dripId],
  );
  return rowCount ?? 0;
}

/** Records the workflow a drip was migrated into and deactivates the drip. */
export async function markDripMigrated(
  db: Queryable,
  accountId: string,
  dripId: string,
  workflowId: string,
  by: object,
): Promise<void> {
  await db.query(
    `UPDATE drip_campaigns SET workflow_id = $3, active = false, updated_at = now(), updated_by = $4
     WHERE account_id = $1 AND id = $2`,
    [accountId, dripId, workflowId, by],
  );
}
