import type { Queryable } from '../../db/client.ts';
import { listRuns, type RunStatus } from '../../db/queries/workflows-runs.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Page } from '../page.ts';
import { requireWorkflow } from './get-workflow.ts';
import { type Enrollment, presentEnrollment } from './present-enrollment.ts';

/** A page of a workflow's enrollments, newest first, optionally by status and contact. */
export async function listEnrollments(
  db: Queryable,
  accountId: string,
  workflowId: string,
  filter: { status?: RunStatus; contactId?: string },
  page: { offset: number; limit: number },
): Promise<Page<Enrollment>> {
  const wf = await requireWorkflow(db, accountId, workflowId);
  if (filter.contactId !== undefined && !isId(filter.contactId))
    fail('VAL-001', '`contactId` must be a contact id.');
  const { rows, total } = await listRuns(db, accountId, wf.id, filter, page);
  return { items: rows.map(presentEnrollment), totalCount: total, ...page };
}
