import type { Queryable } from '../../db/client.ts';
import { findTemplate } from '../../db/queries/templates.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { presentTemplate, smartEncodingOf, type Template } from './present-template.ts';

/** One of the account's templates; none (or another account's, or a non-id) is 404 TMPL-001. */
export async function getTemplate(db: Queryable, accountId: string, templateId: string): Promise<Template> {
  const row = isId(templateId) ? await findTemplate(db, accountId, templateId) : undefined;
  return presentTemplate(row ?? fail('TMPL-001'), await smartEncodingOf(db, accountId));
}
