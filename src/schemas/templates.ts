import { Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { AuditStamp, IdParam, NamedPageQuery } from './common.ts';

/** The kinds of template: an SMS message, or text shown on the web (forms, landing pages). */
export const TemplateType = Type.Union([Type.Literal('SMS'), Type.Literal('Web')]);

const MediaInput = Type.Object({
  url: Type.String({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+',
    maxLength: 2048,
    description: 'Absolute http(s) URL.',
  }),
  type: Type.Optional(Type.String({ maxLength: 200, description: 'Media type, e.g. `image/png`.' })),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  filename: Type.Optional(Type.String({ maxLength: 200 })),
});

export const TemplateMedia = Type.Object({
  url: Type.String(),
  type: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
});

export const Template = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: TemplateType,
  template: Type.String({
    description: 'Message text; merge fields in triple braces, e.g. `{{{firstName}}}`.',
  }),
  media: Type.Array(TemplateMedia),
  segments: Type.Integer({
    description:
      'SMS segments of the template text as it would be sent (smart-encoded when the account’s `smartEncoding` is ' +
      'on; merge fields unrendered); a rendered message may differ.',
  }),
  encoding: Type.Union([Type.Literal('GSM-7'), Type.Literal('UCS-2')], {
    description:
      'Encoding of the template text as it would be sent: UCS-2 when any character (after smart encoding, when on) ' +
      'is outside the GSM-7 alphabet.',
  }),
  mergeFields: Type.Array(Type.String(), {
    description:
      'Merge fields the text uses, in order of first use: contact fields by name (`firstName`), custom attributes as `attributes.<name>`.',
  }),
  created: AuditStamp,
  updated: AuditStamp,
});

const name = Type.String({ minLength: 1, maxLength: 200 });
const text = Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH });
const media = Type.Array(MediaInput, { maxItems: 10 });

export const CreateTemplateBody = Type.Object({
  name,
  template: text,
  type: Type.Optional(TemplateType),
  media: Type.Optional(media),
});

export const UpdateTemplateBody = Type.Object({
  name: Type.Optional(name),
  template: Type.Optional(text),
  type: Type.Optional(TemplateType),
  media: Type.Optional(media),
});

export const TemplateListQuery = NamedPageQuery;

export const TemplateParams = IdParam('accountId', 'templateId');
