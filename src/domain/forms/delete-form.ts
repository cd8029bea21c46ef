import type { Queryable } from '../../db/client.ts';
import { deleteForm as deleteRow } from '../../db/queries/forms.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/**
 * Deletes a form with its conversions and counters; its hosted page answers 404 from then on.
 * The contacts it created stay. FORM-001 when the account has no such form.
 */
export async function deleteForm(db: Queryable, accountId: string, formId: string): Promise<void> {
  if (!isId(formId) || !(await deleteRow(db, accountId, formId))) fail('FORM-001');
}
