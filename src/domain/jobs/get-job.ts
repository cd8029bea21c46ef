import type { Queryable } from '../../db/client.ts';
import { findJob, type JobRow, jobMessageCounts } from '../../db/queries/jobs.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { estimatedFinishAt } from './estimate-finish.ts';
import { type JobResource, presentJobResource, toCounts } from './present-job.ts';

/** The account's job row; MSG-007 when there is none (or the id cannot be one). */
export async function requireJob(db: Queryable, accountId: string, jobId: string): Promise<JobRow> {
  const row = isId(jobId) ? await findJob(db, accountId, jobId) : undefined;
  return row ?? fail('MSG-007', 'Job not found.');
}

/**
 * A job in the API shape: a send with its message counts and estimated finish (null once it has
 * finished), a bulk contact operation with its progress.
 */
export async function presentOneJob(db: Queryable, accountId: string, row: JobRow): Promise<JobResource> {
  if (row.kind !== 'send') return presentJobResource(row);
  const [counts, finish] = await Promise.all([
    jobMessageCounts(db, accountId, [row.id]),
    estimatedFinishAt(db, accountId, row),
  ]);
  // Null is kept: it says the send has finished (the list of jobs leaves the field out).
  return { ...presentJobResource(row, toCounts(counts)), estimatedFinishAt: finish };
}

/** One job of the account (GET …/jobs/{jobId}); MSG-007 when unknown. */
export async function getJob(db: Queryable, accountId: string, jobId: string): Promise<JobResource> {
  return presentOneJob(db, accountId, await requireJob(db, accountId, jobId));
}
