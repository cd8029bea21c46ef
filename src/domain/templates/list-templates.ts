import type { Queryable } from '../../db/client.ts';
import { listTemplates as queryTemplates } from '../../db/queries/templates.ts';
import type { Page } from '../page.ts';
import { presentTemplate, type Template } from './present-template.ts';

/** A page of the account's templates, newest first (optionally by partial, case-insensitive name). */
export async function listTemplates(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<Page<Template>> {
  const { rows, total } = await queryTemplates(db, accountId, filter, page);
  return { items: rows.map(presentTemplate), totalCount: total, ...page };
}
