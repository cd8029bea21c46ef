import type { Queryable } from '../../db/client.ts';
import { findJob, type JobRow, jobMessageCounts } from '../../db/queries/jobs.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type JobResource, presentJobResource, toCounts } from './present-job.ts';

/** The account's job row; MSG-007 when there is none (or the id cannot be one). */
export async function requireJob(db: Queryable, accountId: string, jobId: string): Promise<JobRow> {
  const row = isId(jobId) ? await findJob(db, accountId, jobId) : undefined;
  return row ?? fail('MSG-007', 'Job not found.');
}

/** A job in the API shape: a send with its message counts, a bulk contact operation with its progress. */
export async function presentOneJob(db: Queryable, accountId: string, row: JobRow): Promise<JobResource> {
  if (row.kind !== 'send') return presentJobResource(row);
  return presentJobResource(row, toCounts(await jobMessageCounts(db, accountId, [row.id])));
}

/** One job of the account (GET …/jobs/{jobId}); MSG-007 when unknown. */
export async function getJob(db: Queryable, accountId: string, jobId: string): Promise<JobResource> {
  return presentOneJob(db, accountId, await requireJob(db, accountId, jobId));
}
