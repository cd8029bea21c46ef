import type { Queryable } from '../../db/client.ts';
import { listJobs as listJobRows } from '../../db/queries/jobs.ts';
import type { Page } from '../page.ts';
import { type JobResource, presentJobResource } from './present-job.ts';

/** Filters of the job list, as given. */
export interface ListJobsQuery {
  offset: number;
  limit: number;
  status?: string;
  kind?: string;
  from?: string;
  to?: string;
}

/**
 * A page of the account's jobs, newest first. A send's `counts` are left out of the list (counting
 * reads every message of the job: a page of large sends would read millions of rows); GET
 * …/jobs/{jobId} answers them.
 */
export async function listJobs(
  db: Queryable,
  accountId: string,
  q: ListJobsQuery,
): Promise<Page<JobResource>> {
  const { rows, total } = await listJobRows(
    db,
    accountId,
    {
      status: q.status,
      kind: q.kind,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
    },
    q.offset,
    q.limit,
  );
  return {
    items: rows.map((r) => presentJobResource(r)),
    totalCount: total,
    offset: q.offset,
    limit: q.limit,
  };
}
