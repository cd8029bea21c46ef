import type { Db } from '../../db/client.ts';
import { findCampaign } from '../../db/queries/campaigns.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { requireDrip } from '../drips/get-drip.ts';
import { requireJob } from '../jobs/get-job.ts';
import { requireWorkflow } from '../workflows/get-workflow.ts';
import { reportSummary } from './summary.ts';

/** The records a report can be about: GET …/reports/{kind}/{id}. */
export type ReportKind = 'campaigns' | 'jobs' | 'drips' | 'workflows';

/**
 * The figures of one campaign, send job, drip or workflow of the account (the summary narrowed to
 * it). The record must be the account's: none, another account's or a non-id is its 404
 * (CAMP-001, MSG-007, DRIP-001, WF-001), so a report never confirms that someone else's id exists.
 * A bulk contact job sends nothing: its report is all zeros.
 */
export async function recordReport(
  db: Db,
  accountId: string,
  kind: ReportKind,
  id: string,
  period: { from?: string; to?: string },
) {
  switch (kind) {
    case 'campaigns':
      if (!isId(id) || !(await findCampaign(db, accountId, id))) fail('CAMP-001');
      return reportSummary(db, accountId, { ...period, campaignId: id });
    case 'jobs':
      await requireJob(db, accountId, id);
      return reportSummary(db, accountId, { ...period, jobId: id });
    case 'drips':
      await requireDrip(db, accountId, id);
      return reportSummary(db, accountId, { ...period, dripId: id });
    default:
      await requireWorkflow(db, accountId, id);
      return reportSummary(db, accountId, { ...period, workflowId: id });
  }
}
