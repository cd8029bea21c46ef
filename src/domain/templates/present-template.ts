import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import { sendingSettings } from '../../db/queries/accounts.ts';
import type { TemplateRow } from '../../db/queries/templates.ts';
import { parseTemplate } from '../../messaging/render.ts';
import { countSegments, encodeText } from '../../messaging/segments.ts';
import type { Template as TemplateSchema } from '../../schemas/templates.ts';
import { stamp } from '../actor.ts';

/** The merge fields a template uses, in order of first use, each once. */
export function mergeFieldsOf(template: string): string[] {
  const names = new Set<string>();
  for (const part of parseTemplate(template)) {
    if (part.kind === 'field') names.add(part.field);
    // Prefixed so an attribute that shares a contact field's name reads unambiguously.
    else if (part.kind === 'attribute') names.add(`attributes.${part.name}`);
  }
  return [...names];
}

/**
 * The Message template shape of the API, with the text's segments, encoding and merge fields. The
 * segments and encoding are the text's as it would be sent: smart-encoded when `smart` (the
 * account's setting, smartEncodingOf) while `template` stays as written.
 */
export function presentTemplate(t: TemplateRow, smart = false): Static<typeof TemplateSchema> {
  const { segments, encoding } = countSegments(encodeText(t.template, smart));
  return {
    id: t.id,
    name: t.name,
    type: t.type,
    template: t.template,
    media: t.media,
    segments,
    encoding,
    mergeFields: mergeFieldsOf(t.template),
    created: stamp(t.created_at, t.created_by),
    updated: stamp(t.updated_at, t.updated_by),
  };
}

/** Whether the account sends with smart encoding (docs/encoding.md): templates are counted that way. */
export async function smartEncodingOf(db: Queryable, accountId: string): Promise<boolean> {
  return (await sendingSettings(db, accountId))?.smart_encoding ?? true;
}

/** A template as the API shows it. */
export type Template = ReturnType<typeof presentTemplate>;
