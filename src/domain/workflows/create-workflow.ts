import pg from 'pg';
import { type Db, type Queryable, withTx } from '../../db/client.ts';
import { findWorkflow, insertWorkflow, versionsOf } from '../../db/queries/workflows.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import type { DefinitionInput } from './definition.ts';
import { presentWorkflow, type Workflow } from './present-workflow.ts';
import { saveVersions } from './save-versions.ts';

export type { Workflow } from './present-workflow.ts';

/** What a caller gives to create a workflow: a name and its first versions (each with a definition). */
export interface WorkflowInput {
  name: string;
  versions?: {
    name?: string;
    definition: DefinitionInput;
    activate?: boolean;
    active?: string | boolean | null;
  }[];
}

/**
 * Creates a workflow and its versions in one transaction; a version with `activate: true` becomes
 * the active one (contacts start entering it). Nodes name their type as `type: {id}` (see
 * node-types.ts). Given a client inside a transaction instead of the pool, it writes in that
 * transaction (so a caller's own changes and the workflow commit together).
 * Errors: WF-008 several active versions, WF-010…WF-017 invalid definition.
 */
export async function createWorkflow(
  db: Db | Queryable,
  accountId: string,
  input: WorkflowInput,
  by: Actor,
): Promise<Workflow> {
  const id = newId();
  const inTx = (fn: (tx: Queryable) => Promise<Workflow>) =>
    db instanceof pg.Pool ? withTx(db, fn) : fn(db);
  return inTx(async (tx) => {
    await insertWorkflow(tx, accountId, { id, name: input.name, by });
    await saveVersions(tx, accountId, id, input.versions ?? [], by);
    const row = await findWorkflow(tx, accountId, id);
    return presentWorkflow(row as NonNullable<typeof row>, await versionsOf(tx, accountId, [id]));
  });
}
