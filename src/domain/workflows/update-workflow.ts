import { type Db, withTx } from '../../db/client.ts';
import { touchWorkflow } from '../../db/queries/workflows.ts';
import type { Actor } from '../actor.ts';
import { requireWorkflow } from './get-workflow.ts';
import { presentWorkflows, type Workflow } from './present-workflow.ts';
import { saveVersions, type VersionInput } from './save-versions.ts';

/** The body of PUT …/workflows/{id}. */
export interface WorkflowUpdate {
  name?: string;
  versions?: VersionInput[];
}

/**
 * Renames a workflow and/or applies the given versions (with `id`: edit that version; without:
 * add one; versions not named stay as they are). A version asking to be active becomes THE active
 * one. Changing a read-only version's definition is 409 WF-004 (add a new version instead).
 * Errors: WF-001, WF-003, WF-004, WF-008, WF-010…WF-017.
 */
export async function updateWorkflow(
  db: Db,
  accountId: string,
  workflowId: string,
  input: WorkflowUpdate,
  by: Actor,
  externalsUrl: string,
): Promise<Workflow> {
  return withTx(db, async (tx) => {
    // Locked: concurrent edits of one workflow apply one after the other.
    const row = await requireWorkflow(tx, accountId, workflowId, { lock: true });
    await saveVersions(tx, accountId, row.id, input.versions ?? [], by, externalsUrl);
    await touchWorkflow(tx, accountId, row.id, input.name, by);
    const [updated] = await presentWorkflows(tx, accountId, [await requireWorkflow(tx, accountId, row.id)]);
    return updated;
  });
}
