import type { Queryable } from '../../db/client.ts';
import { deleteTemplate as deleteRow } from '../../db/queries/templates.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/** Deletes a template; 404 TMPL-001 when the account has none by that id. */
export async function deleteTemplate(db: Queryable, accountId: string, templateId: string): Promise<void> {
  if (!isId(templateId) || !(await deleteRow(db, accountId, templateId))) fail('TMPL-001');
}
