import { type Db, withTx } from '../../db/client.ts';
import { activeVersions } from '../../db/queries/workflows-runs.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { enroll } from './enroll.ts';
import { requireWorkflow } from './get-workflow.ts';
import { type Enrollment, presentEnrollment } from './present-enrollment.ts';

/**
 * Enrolls a contact in the workflow's active version now (the manual trigger; any trigger type
 * accepts it). Errors: WF-001, WF-006 no active version, CONT-002 unknown contact, CONT-010 opted
 * out, CONT-011 blocked, WF-007 already enrolled (or once only, per the trigger type).
 */
export async function enrollContact(
  db: Db,
  accountId: string,
  workflowId: string,
  contactId: string,
): Promise<Enrollment> {
  return withTx(db, async (tx) => {
    const wf = await requireWorkflow(tx, accountId, workflowId);
    const version =
      (await activeVersions(tx, accountId)).find((v) => v.workflow_id === wf.id) ?? fail('WF-006');
    if (!isId(contactId)) fail('CONT-002');
    const run = await enroll(tx, accountId, version, contactId.toLowerCase(), 'manual');
    if (run === 'no-contact') fail('CONT-002');
    if (run === 'opted-out') fail('CONT-010');
    if (run === 'blocked') fail('CONT-011');
    if (run === 'live') fail('WF-007', 'The contact is in this workflow already.');
    if (run === 'no-reenrollment')
      fail('WF-007', "The workflow's trigger does not let a contact enter twice.");
    return presentEnrollment(run);
  });
}
