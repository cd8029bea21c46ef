import type { Db } from '../../db/client.ts';
import { insertForm } from '../../db/queries/forms.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type FormInput, formFields, normaliseFields } from './form-input.ts';
import { getForm } from './get-form.ts';
import type { LeadForm } from './present-form.ts';

/**
 * Saves a new form, from scratch or from a catalog template (`templateId`: the template fills what
 * the input leaves out). Inactive unless `active` is true. Without fields the form asks for the
 * mobile number only. Errors: FORM-002 unknown template, FORM-003 bad fields, LIST-001, LIST-002,
 * VAL-001 no name (neither given nor from a template).
 */
export async function createForm(
  db: Db,
  accountId: string,
  input: FormInput & { active?: boolean },
  by: Actor,
  externalsUrl: string,
): Promise<LeadForm> {
  const fields = await formFields(db, accountId, input, { withTemplate: true });
  const name = fields.name ?? fail('VAL-001', 'A form needs a name (or a templateId to take it from).');
  const id = newId();
  await insertForm(db, accountId, {
    ...fields,
    id,
    name,
    fields: fields.fields ?? normaliseFields([]),
    active: input.active ?? false,
    by,
  });
  return getForm(db, accountId, id, externalsUrl);
}
