import type { Queryable } from '../../db/client.ts';
import { type FormRow, findForm } from '../../db/queries/forms.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type LeadForm, presentForm } from './present-form.ts';

/** The account's form row; none (or another account's, or a non-id) is 404 FORM-001. */
export async function requireForm(db: Queryable, accountId: string, formId: string): Promise<FormRow> {
  const row = isId(formId) ? await findForm(db, accountId, formId) : undefined;
  return row ?? fail('FORM-001');
}

/** One of the account's forms in the Lead form shape. */
export async function getForm(
  db: Queryable,
  accountId: string,
  formId: string,
  externalsUrl: string,
): Promise<LeadForm> {
  return presentForm(await requireForm(db, accountId, formId), externalsUrl);
}
