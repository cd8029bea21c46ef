import type { Queryable } from '../../db/client.ts';
import { listConversions } from '../../db/queries/forms-activity.ts';
import type { Page } from '../page.ts';
import { instantRange } from './date-range.ts';
import { requireForm } from './get-form.ts';
import { type FormConversion, presentConversion } from './present-form.ts';

/**
 * A page of a form's conversions, newest first, submitted between `start` and `end` (ISO dates or
 * date-times; a date-only end covers its whole UTC day). Errors: FORM-001, VAL-001 bad range.
 */
export async function listFormConversions(
  db: Queryable,
  accountId: string,
  formId: string,
  query: { start?: string; end?: string },
  page: { offset: number; limit: number },
): Promise<Page<FormConversion>> {
  const range = instantRange(query.start, query.end);
  const form = await requireForm(db, accountId, formId);
  const { rows, total } = await listConversions(db, accountId, form.id, range, page);
  return { items: rows.map(presentConversion), totalCount: total, ...page };
}
