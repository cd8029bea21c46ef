import type { Queryable } from '../../db/client.ts';
import { findWorkflow, type WorkflowRow } from '../../db/queries/workflows.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { presentWorkflows, type Workflow } from './present-workflow.ts';

/** The account's workflow row, locked when asked; none (or another account's, or a non-id) is 404 WF-001. */
export async function requireWorkflow(
  db: Queryable,
  accountId: string,
  workflowId: string,
  opts: { lock?: boolean } = {},
): Promise<WorkflowRow> {
  const row = isId(workflowId) ? await findWorkflow(db, accountId, workflowId, opts) : undefined;
  return row ?? fail('WF-001');
}

/** One of the account's workflows with its versions; 404 WF-001 when there is none. */
export async function getWorkflow(db: Queryable, accountId: string, workflowId: string): Promise<Workflow> {
  const row = await requireWorkflow(db, accountId, workflowId);
  return (await presentWorkflows(db, accountId, [row]))[0];
}
