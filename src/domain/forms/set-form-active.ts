import type { Queryable } from '../../db/client.ts';
import { setFormActive as setActive } from '../../db/queries/forms.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { getForm } from './get-form.ts';
import type { LeadForm } from './present-form.ts';

/**
 * Activates a form (its hosted page accepts submissions; `active` keeps the first activation time
 * when it is active already) or deactivates it (`active` null; the page answers 404). Idempotent.
 * FORM-001 when the account has no such form.
 */
export async function setFormActive(
  db: Queryable,
  accountId: string,
  formId: string,
  active: boolean,
  by: Actor,
  externalsUrl: string,
): Promise<LeadForm> {
  if (!isId(formId) || !(await setActive(db, accountId, formId, active, by))) fail('FORM-001');
  return getForm(db, accountId, formId, externalsUrl);
}
