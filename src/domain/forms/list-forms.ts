import type { Queryable } from '../../db/client.ts';
import { listForms as queryForms } from '../../db/queries/forms.ts';
import type { Page } from '../page.ts';
import { type LeadForm, presentForm } from './present-form.ts';

/** A page of the account's forms, newest first (optionally by partial, case-insensitive name). */
export async function listForms(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
  externalsUrl: string,
): Promise<Page<LeadForm>> {
  const { rows, total } = await queryForms(db, accountId, filter, page);
  return { items: rows.map((r) => presentForm(r, externalsUrl)), totalCount: total, ...page };
}
