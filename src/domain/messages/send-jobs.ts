import type { Db } from '../../db/client.ts';
import { endScheduledJob, findSendJob } from '../../db/queries/send-jobs.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Job, presentJob } from '../campaigns/present-campaign.ts';

/** One send job (a send's counts, charge and status; a scheduled send's time). MSG-007 when unknown. */
export async function getSendJob(db: Db, accountId: string, jobId: string): Promise<Job> {
  const job = isId(jobId) ? await findSendJob(db, accountId, jobId) : undefined;
  return presentJob(job ?? fail('MSG-007'));
}

/**
 * Cancels a scheduled send before it runs: its job becomes `cancelled` and nothing is sent or
 * charged. MSG-007 unknown job; MSG-008 when it is not (or no longer) scheduled.
 */
export async function cancelSendJob(db: Db, accountId: string, jobId: string): Promise<Job> {
  if (!isId(jobId)) fail('MSG-007');
  const job = await endScheduledJob(db, accountId, jobId, { status: 'cancelled' });
  if (job) return presentJob(job);
  const existing = await findSendJob(db, accountId, jobId);
  if (!existing) fail('MSG-007');
  return fail('MSG-008', `The send job is ${existing.status}: only a scheduled send can be cancelled.`);
}
