import type { Queryable } from '../../db/client.ts';
import { listTemplates as queryTemplates } from '../../db/queries/templates.ts';
import type { Page } from '../page.ts';
import { presentTemplate, smartEncodingOf, type Template } from './present-template.ts';

/** A page of the account's templates, newest first (optionally by partial, case-insensitive name). */
export async function listTemplates(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<Page<Template>> {
  const [{ rows, total }, smart] = await Promise.all([
    queryTemplates(db, accountId, filter, page),
    smartEncodingOf(db, accountId),
  ]);
  return { items: rows.map((t) => presentTemplate(t, smart)), totalCount: total, ...page };
}
