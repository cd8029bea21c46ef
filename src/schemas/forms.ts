import { type TSchema, Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { AuditStamp, IdParam, LiteralUnion, NamedPageQuery, PageQuery } from './common.ts';

// Null first: with type coercion on, a null tried against a string branch first would become "".
const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);

const FIELD_TYPES = ['text', 'textarea', 'email', 'tel', 'number', 'date', 'checkbox', 'select'] as const;
const FieldType = LiteralUnion(FIELD_TYPES, {
  description: 'Input type. `mobile` is always `tel`, `email` always `email`.',
});

/** One field of a form as stored and shown. */
export const FormField = Type.Object({
  name: Type.String({
    description:
      '`mobile` (always present and required), `firstName`, `lastName`, `email` fill the contact; any other ' +
      'name is stored as a custom attribute of the contact.',
  }),
  label: Type.String(),
  type: FieldType,
  required: Type.Boolean(),
  options: Type.Optional(Type.Array(Type.String(), { description: 'The choices of a `select` field.' })),
});

const FormFieldInput = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]{0,49}$', description: 'Letters and digits.' }),
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  type: Type.Optional(FieldType),
  required: Type.Optional(Type.Boolean()),
  options: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50 }),
  ),
});

const formProps = {
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  templateId: Type.Optional(Type.String({ description: 'The catalog template the form was created from.' })),
  fields: Type.Array(FormField),
  list: Type.Optional(
    Type.Object({ id: Type.String(), name: Type.String() }, { description: 'The list joined.' }),
  ),
  defaultCountry: Type.String({ description: 'Country national numbers are read in (ISO 3166 alpha-2).' }),
  confirmationMessage: Type.Optional(
    Type.String({ description: 'Text sent to the submitter (merge fields such as {{{firstName}}}).' }),
  ),
  consentText: Type.Optional(
    Type.String({ description: 'Shown beside a checkbox the submitter must tick.' }),
  ),
  submitLabel: Type.Optional(Type.String()),
  successMessage: Type.Optional(Type.String()),
  active: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the form went live; absent when inactive.' }),
  ),
  impressions: Type.Integer({ description: 'Views of the hosted page.' }),
  conversions: Type.Integer({ description: 'Accepted submissions.' }),
  created: AuditStamp,
  updated: AuditStamp,
};

/** The Lead form shape (plus its definition and the hosted page `url`). */
export const LeadForm = Type.Object({
  ...formProps,
  url: Type.String({ description: 'The hosted page on the public listener.' }),
});

/** A catalog template, in the Lead form shape. */
export const FormTemplate = Type.Object({
  ...formProps,
  category: Type.String(),
});

const text = (max: number) => Type.Optional(Nullable(Type.String({ maxLength: max })));
const formFields = {
  description: text(2000),
  fields: Type.Optional(Type.Array(FormFieldInput, { maxItems: 30 })),
  listId: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'A static list.' }))),
  defaultCountry: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166 alpha-2.' })),
  confirmationMessage: text(MAX_TEXT_LENGTH),
  consentText: text(2000),
  submitLabel: text(100),
  successMessage: text(2000),
};
const name = Type.String({ minLength: 1, maxLength: 200 });

export const CreateFormBody = Type.Object({
  name: Type.Optional(name),
  templateId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Start from this catalog template.' }),
  ),
  active: Type.Optional(Type.Boolean({ default: false, description: 'Go live at once.' })),
  ...formFields,
});
export const UpdateFormBody = Type.Object({ name: Type.Optional(name), ...formFields });

export const FormListQuery = NamedPageQuery;
export const FormParams = IdParam('accountId', 'formId');

const DateParam = (what: string) =>
  Type.Optional(
    Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:?\\d{2}))?$',
      maxLength: 40,
      description: `${what} (ISO 8601 date or date-time, UTC days).`,
    }),
  );

export const ConversionQuery = Type.Object({
  ...PageQuery,
  start: DateParam('Submitted on or after'),
  end: DateParam('Submitted on or before (a date covers its whole day)'),
});

export const AnalyticsQuery = Type.Object({
  start: DateParam('First day (default: the day the form was created, at most 366 days back)'),
  end: DateParam('Last day (default: today)'),
});

export const TemplateQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches name, description or category.' })),
  sort: Type.Optional(
    Type.Union(
      [Type.Literal('name'), Type.Literal('-name'), Type.Literal('created'), Type.Literal('-created')],
      {
        default: 'name',
        description: '`name`, `created`; `-` for descending.',
      },
    ),
  ),
});

/** The Form conversion shape (plus what became of the confirmation text). */
export const FormConversion = Type.Object({
  id: Type.String(),
  ip: Type.Optional(Type.String()),
  pageUrl: Type.Optional(Type.String()),
  submitted: Type.String({ format: 'date-time' }),
  contact: Type.Object({
    id: Type.Optional(Type.String()),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    mobile: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
  }),
  submittedFields: Type.Record(Type.String(), Type.Unknown()),
  confirmation: Type.Object({
    messageId: Type.Optional(Type.String()),
    error: Type.Optional(Type.Object({ code: Type.String(), description: Type.String() })),
  }),
});

export const FormAnalytics = Type.Object({
  start: Type.String({ format: 'date' }),
  end: Type.String({ format: 'date' }),
  impressions: Type.Integer(),
  conversions: Type.Integer(),
  conversionRate: Type.Number(),
  days: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date' }),
      impressions: Type.Integer(),
      conversions: Type.Integer(),
    }),
  ),
});
