import type { Static } from '@sinclair/typebox';
import type { TemplateRow } from '../../db/queries/templates.ts';
import type { Template as TemplateSchema } from '../../http/schemas/templates.ts';
import { parseTemplate } from '../../messaging/render.ts';
import { countSegments } from '../../messaging/segments.ts';
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

/** The Message template shape of the API, with the text's segments, encoding and merge fields. */
export function presentTemplate(t: TemplateRow): Static<typeof TemplateSchema> {
  const { segments, encoding } = countSegments(t.template);
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

/** A template as the API shows it. */
export type Template = ReturnType<typeof presentTemplate>;
