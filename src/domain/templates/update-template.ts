import type { Queryable } from '../../db/client.ts';
import { type TemplateFields, updateTemplate as updateRow } from '../../db/queries/templates.ts';
import { fail } from '../../errors.ts';
import { checkMediaUrls } from '../../messaging/media-url.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentTemplate, smartEncodingOf, type Template } from './present-template.ts';

/**
 * Changes the given fields of a template (the others stay); 404 TMPL-001 when there is none. Media
 * URLs are checked against `externalsUrl` (the service's EXTERNALS_URL).
 */
export async function updateTemplate(
  db: Queryable,
  accountId: string,
  templateId: string,
  input: Partial<TemplateFields>,
  by: Actor,
  externalsUrl: string,
): Promise<Template> {
  checkMediaUrls(input.media, externalsUrl);
  const row = isId(templateId) ? await updateRow(db, accountId, templateId, input, by) : undefined;
  return presentTemplate(row ?? fail('TMPL-001'), await smartEncodingOf(db, accountId));
}
