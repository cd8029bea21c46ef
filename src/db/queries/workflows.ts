import type { Queryable } from '../client.ts';
import { listByName } from './paging.ts';

/** A node as stored. */
export interface StoredNode {
  id: string;
  typeId: string;
  config: Record<string, unknown>;
}

/** An edge as stored. */
export interface StoredEdge {
  id: string;
  source: string;
  target: string;
  value: string;
}

/** A definition as stored (workflow_versions.definition). */
export interface StoredDefinition {
  nodes: StoredNode[];
  edges: StoredEdge[];
  properties: { name: string; dataType: string; created: { at: string } }[];
}

/** A workflow as stored. */
export interface WorkflowRow {
  account_id: string;
  id: string;
  name: string;
  /** The engine of the drip with this id: hidden from the workflow endpoints, drip rules apply. */
  drip: boolean;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** A workflow version as stored. */
export interface VersionRow {
  account_id: string;
  id: string;
  workflow_id: string;
  name: string;
  definition: StoredDefinition;
  active_at: Date | null;
  last_active_at: Date | null;
  readonly: boolean;
  /** A drip's version: the drip message each send node is ({nodeId: stepId}). */
  drip_steps: Record<string, string> | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

export async function insertWorkflow(
  db: Queryable,
  accountId: string,
  w: { id: string; name: string; by: object; drip?: boolean },
): Promise<void> {
  await db.query(
    `INSERT INTO workflows (account_id, id, name, created_by, updated_by, drip) VALUES ($1, $2, $3, $4, $4, $5)`,
    [accountId, w.id, w.name, w.by, w.drip ?? false],
  );
}

export async function findWorkflow(
  db: Queryable,
  accountId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<WorkflowRow | undefined> {
  const { rows } = await db.query<WorkflowRow>(
    `SELECT * FROM workflows WHERE account_id = $1 AND id = $2 AND NOT drip${opts.lock ? ' FOR UPDATE' : ''}`,
    [accountId, id],
  );
  return rows[0];
}

/** Renames and/or stamps a workflow as updated; answers false when the account has no such workflow. */
export async function touchWorkflow(
  db: Queryable,
  accountId: string,
  id: string,
  name: string | undefined,
  by: object,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE workflows SET name = coalesce($3, name), updated_at = now(), updated_by = $4
     WHERE account_id = $1 AND id = $2`,
    [accountId, id, name ?? null, by],
  );
  return (rowCount ?? 0) > 0;
}

export async function deleteWorkflow(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM workflows WHERE account_id = $1 AND id = $2 AND NOT drip',
    [accountId, id],
  );
  return (rowCount ?? 0) > 0;
}

/** One page of the account's workflows, newest first (optionally by partial name), with the total. */
export async function listWorkflows(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: WorkflowRow[]; total: number }> {
  return listByName<WorkflowRow>(db, 'workflows', accountId, filter, page, 'NOT drip');
}

/** The versions of the given workflows, oldest first. */
export async function versionsOf(
  db: Queryable,
  accountId: string,
  workflowIds: string[],
): Promise<VersionRow[]> {
  if (workflowIds.length === 0) return [];
  const { rows } = await db.query<VersionRow>(
    `SELECT * FROM workflow_versions WHERE account_id = $1 AND workflow_id = ANY ($2::uuid[])
     ORDER BY created_at, id`,
    [accountId, workflowIds],
  );
  return rows;
}

export async function insertVersion(
  db: Queryable,
  accountId: string,
  v: {
    id: string;
    workflowId: string;
    name: string;
    definition: StoredDefinition;
    by: object;
    dripSteps?: Record<string, string>;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO workflow_versions (account_id, id, workflow_id, name, definition, created_by, updated_by, drip_steps)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7)`,
    [
      accountId,
      v.id,
      v.workflowId,
      v.name,
      JSON.stringify(v.definition),
      v.by,
      v.dripSteps ? JSON.stringify(v.dripSteps) : null,
    ],
  );
}

/** A drip's own workflow row (hidden or handed over), locked. */
export async function findDripWorkflow(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<WorkflowRow | undefined> {
  const { rows } = await db.query<WorkflowRow>(
    'SELECT * FROM workflows WHERE account_id = $1 AND id = $2 FOR UPDATE',
    [accountId, id],
  );
  return rows[0];
}

/** Sets a drip's workflow: its name, and whether the drip still owns it (false: handed over). */
export async function setDripWorkflow(
  db: Queryable,
  accountId: string,
  id: string,
  f: { name: string; drip: boolean; by: object },
): Promise<void> {
  await db.query(
    `UPDATE workflows SET name = $3, drip = $4, updated_at = now(), updated_by = $5
      WHERE account_id = $1 AND id = $2`,
    [accountId, id, f.name, f.drip, f.by],
  );
}

/** Replaces a version's definition and drip message map (a version no run has entered yet). */
export async function setDripVersion(
  db: Queryable,
  accountId: string,
  id: string,
  f: { name: string; definition: StoredDefinition; dripSteps: Record<string, string>; by: object },
): Promise<void> {
  await db.query(
    `UPDATE workflow_versions SET name = $3, definition = $4, drip_steps = $5, updated_at = now(), updated_by = $6
      WHERE account_id = $1 AND id = $2`,
    [accountId, id, f.name, JSON.stringify(f.definition), JSON.stringify(f.dripSteps), f.by],
  );
}

/** Sets a version's name and/or definition (undefined: kept). */
export async function updateVersion(
  db: Queryable,
  accountId: string,
  id: string,
  f: { name?: string; definition?: StoredDefinition },
  by: object,
): Promise<void> {
  await db.query(
    `UPDATE workflow_versions SET name = coalesce($3, name), definition = coalesce($4::jsonb, definition),
            updated_at = now(), updated_by = $5
     WHERE account_id = $1 AND id = $2`,
    [accountId, id, f.name ?? null, f.definition ? JSON.stringify(f.definition) : null, by],
  );
}

/**
 * Makes `versionId` the workflow's active version (null: none is active). The one it replaces
 * records when it stopped (last_active_at); an already active version keeps its active_at.
 */
export async function setActiveVersion(
  db: Queryable,
  accountId: string,
  workflowId: string,
  versionId: string | null,
): Promise<void> {
  await db.query(
    `UPDATE workflow_versions SET active_at = NULL, last_active_at = now(), updated_at = now()
     WHERE account_id = $1 AND workflow_id = $2 AND active_at IS NOT NULL AND id IS DISTINCT FROM $3`,
    [accountId, workflowId, versionId],
  );
  if (versionId === null) return;
  await db.query(
    `UPDATE workflow_versions SET active_at = coalesce(active_at, now()), updated_at = now()
     WHERE account_id = $1 AND workflow_id = $2 AND id = $3`,
    [accountId, workflowId, versionId],
  );
}

/** One version of the account. */
export async function findVersion(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<VersionRow | undefined> {
  const { rows } = await db.query<VersionRow>(
    'SELECT * FROM workflow_versions WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0];
}

/** One version with whether its workflow is a drip's (the engine's view of a run's version). */
export async function findRunVersion(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<(VersionRow & { drip: boolean }) | undefined> {
  const { rows } = await db.query<VersionRow & { drip: boolean }>(
    `SELECT v.*, w.drip FROM workflow_versions v
       JOIN workflows w ON w.account_id = v.account_id AND w.id = v.workflow_id
      WHERE v.account_id = $1 AND v.id = $2`,
    [accountId, id],
  );
  return rows[0];
}
