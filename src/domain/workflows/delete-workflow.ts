import type { Queryable } from '../../db/client.ts';
import { deleteWorkflow as deleteRow } from '../../db/queries/workflows.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/**
 * Deletes a workflow with its versions and runs: its running enrollments stop at once (a runner
 * mid-step finds its run gone and does nothing more). Messages it sent stay. 404 WF-001 when the
 * account has none by that id.
 */
export async function deleteWorkflow(db: Queryable, accountId: string, workflowId: string): Promise<void> {
  if (!isId(workflowId) || !(await deleteRow(db, accountId, workflowId))) fail('WF-001');
}
