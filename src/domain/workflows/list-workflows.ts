import type { Queryable } from '../../db/client.ts';
import { listWorkflows as queryWorkflows } from '../../db/queries/workflows.ts';
import type { Page } from '../page.ts';
import { presentWorkflows, type Workflow } from './present-workflow.ts';

/** A page of the account's workflows, newest first (optionally by partial, case-insensitive name). */
export async function listWorkflows(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<Page<Workflow>> {
  const { rows, total } = await queryWorkflows(db, accountId, filter, page);
  return { items: await presentWorkflows(db, accountId, rows), totalCount: total, ...page };
}
