import type { Db } from '../../db/client.ts';
import { updateForm as updateRow } from '../../db/queries/forms.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type FormInput, formFields } from './form-input.ts';
import { getForm } from './get-form.ts';
import type { LeadForm } from './present-form.ts';

/**
 * Changes the given fields of a form (the others stay; `fields` replaces the whole list, `listId:
 * null` removes the list). Activation has its own operations. Errors: FORM-001, FORM-003,
 * LIST-001, LIST-002.
 */
export async function updateForm(
  db: Db,
  accountId: string,
  formId: string,
  input: FormInput,
  by: Actor,
  externalsUrl: string,
): Promise<LeadForm> {
  if (!isId(formId)) fail('FORM-001');
  const fields = await formFields(db, accountId, input, { withTemplate: false });
  if (!(await updateRow(db, accountId, formId, fields, by))) fail('FORM-001');
  return getForm(db, accountId, formId, externalsUrl);
}
