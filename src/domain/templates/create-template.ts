import type { Queryable } from '../../db/client.ts';
import { insertTemplate, type TemplateFields } from '../../db/queries/templates.ts';
import { checkMediaUrls } from '../../messaging/media-url.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentTemplate, smartEncodingOf, type Template } from './present-template.ts';

/** What a caller gives to create a template: type defaults to SMS, media to none. */
export type CreateTemplateInput = Pick<TemplateFields, 'name' | 'template'> & Partial<TemplateFields>;

/**
 * Saves a new message template. Names need not be unique: the id identifies a template. Media URLs
 * are checked against `externalsUrl` (the service's EXTERNALS_URL: its own files are accepted).
 */
export async function createTemplate(
  db: Queryable,
  accountId: string,
  input: CreateTemplateInput,
  by: Actor,
  externalsUrl: string,
): Promise<Template> {
  checkMediaUrls(input.media, externalsUrl);
  const row = await insertTemplate(db, accountId, {
    id: newId(),
    name: input.name,
    type: input.type ?? 'SMS',
    template: input.template,
    media: input.media ?? [],
    by,
  });
  return presentTemplate(row, await smartEncodingOf(db, accountId));
}
