import { type TSchema, Type } from '@sinclair/typebox';
import { AuditStamp, ErrorObject, PageQuery } from './common.ts';
import {
  CSV_BODY_LIMIT,
  MAX_ATTRIBUTE_BYTES,
  MAX_ATTRIBUTE_KEY_LENGTH,
  MAX_ATTRIBUTE_VALUE_LENGTH,
  MAX_ATTRIBUTES,
  MAX_CSV_COLUMNS,
  MAX_CSV_RECORD_CHARS,
} from './limits.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const ContactTag = Type.Object({ tag: Type.String(), visible: Type.Boolean() });

/** A Contact's `mobile`; unset fields are left out. The same object inside a Message and a Conversation. */
export const ContactMobile = Type.Object({
  country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2 region of the number.' })),
  number: Type.String({ description: 'E.164.' }),
  verified: Type.Optional(Timestamp),
  valid: Type.Boolean(),
  lineType: Type.Optional(
    Type.String({
      description: '`mobile`, `landline`, `fixedOrMobile`, `voip`, `tollFree`, `personal`, ... or `unknown`.',
    }),
  ),
});

/**
 * The contact's `mobile` inside a Message: the Contact's mobile object; only `number` when the
 * contact no longer has the number the message went to or came from.
 */
export const MessageContactMobile = Type.Object(
  { ...ContactMobile.properties, valid: Type.Optional(Type.Boolean()) },
  { description: "The Contact's mobile object." },
);

export const ContactListMembership = Type.Object({
  id: Type.String(),
  name: Type.String(),
  optIn: Type.Optional(Timestamp),
  optOut: Type.Optional(Timestamp),
});

export const Contact = Type.Object(
  {
    id: Type.String(),
    // Unset fields are left out, never null (the published description marks nothing nullable).
    email: Type.Optional(Type.String()),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    mobile: Type.Optional(ContactMobile),
    lists: Type.Array(ContactListMembership, { description: 'The static lists the contact is a member of.' }),
    attributes: Type.Object(
      {},
      { additionalProperties: true, description: 'Custom attributes (free-form).' },
    ),
    tags: Type.Array(ContactTag),
    optIn: Type.Optional(Timestamp),
    optOut: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the contact opted out (STOP); left out while subscribed.',
      }),
    ),
    blocked: Type.Optional(Timestamp),
    valid: Type.Boolean(),
    error: Type.Optional(ErrorObject),
    created: AuditStamp,
    updated: AuditStamp,
  },
  {
    additionalProperties: Type.Object({ id: Type.Integer() }, { additionalProperties: true }),
    description:
      'A contact. CRM-integration fields (each named after the CRM, `{id}`) appear only when the contact is linked to one.',
  },
);

const TimestampOrFlag = (what: string) =>
  Type.Union([Timestamp, Type.Boolean(), Type.Null()], {
    description: `${what}: a timestamp, \`true\` (now) or \`false\`/\`null\` (clear).`,
  });

/** A contact in a request body. */
export const ContactBody = Type.Object({
  mobile: Type.Optional(
    Type.Union(
      [
        Type.String({ maxLength: 64 }),
        Type.Object({
          number: Type.String({ maxLength: 64 }),
          country: Type.Optional(
            Type.String({ maxLength: 2, description: 'Reads a national number; default US.' }),
          ),
        }),
      ],
      {
        description:
          'E.164 string, or `{number, country}` for a national number. Parsed with libphonenumber; invalid → 400 CONT-001.',
      },
    ),
  ),
  firstName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  lastName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  email: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
  attributes: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'Custom attributes; in an update a null value removes the key. Limits (400 CONT-005): ' +
          `at most ${MAX_ATTRIBUTES} per contact (after merging), names of at most ${MAX_ATTRIBUTE_KEY_LENGTH} characters, ` +
          `values of at most ${MAX_ATTRIBUTE_VALUE_LENGTH} characters (JSON text for non-strings), ` +
          `${MAX_ATTRIBUTE_BYTES} bytes in all (names plus values, UTF-8).`,
      },
    ),
  ),
  tags: Type.Optional(
    Type.Array(
      Type.Union([
        Type.String({ maxLength: 100 }),
        Type.Object({ tag: Type.String({ maxLength: 100 }), visible: Type.Optional(Type.Boolean()) }),
      ]),
      { maxItems: 200, description: '`{tag, visible}` items or plain strings (visible).' },
    ),
  ),
  optIn: Type.Optional(TimestampOrFlag('When the contact opted in')),
  blocked: Type.Optional(TimestampOrFlag('When the contact was blocked')),
});

export const MergeStrategy = Type.Union(
  [Type.Literal('append'), Type.Literal('core'), Type.Literal('remove')],
  {
    description:
      'When the mobile already exists: `append` updates the given fields and merges attributes and tags; `core` updates only ' +
      'firstName, lastName, email and the mobile country; `remove` replaces the contact data with the given data. ' +
      'Without it a duplicate is 409 CONT-003 (JSON) or an error row (CSV).',
  },
);

export const CreateContactQuery = Type.Object({ mergeStrategy: Type.Optional(MergeStrategy) });

// No `type`: the body reaches validation as a spooled file (storage/spooled-upload.ts), not a string.
export const CsvUpload = Type.Unsafe<unknown>({
  contentMediaType: 'text/csv',
  description:
    'CSV with a header row, e.g. `country,firstName,lastName,email,mobile,tags,optIn,blocked,...`: `mobile` is required ' +
    '(E.164, or national with `country`), `tags` is split on `;`, every other column becomes an attribute. ' +
    `Limits: ${CSV_BODY_LIMIT / (1024 * 1024)} MiB (413), ${MAX_CSV_COLUMNS} columns, ${MAX_CSV_RECORD_CHARS} characters per row, and the attribute ` +
    'limits of a contact (400, naming the row and column).',
});

export const UploadError = Type.Object({
  row: Type.Integer({ description: 'Data row number, 1 = the first row after the header.' }),
  input: Type.Record(Type.String(), Type.String()),
  error: ErrorObject,
});

export const UploadResult = Type.Object({
  submitted: Type.Integer({ description: 'Data rows in the upload.' }),
  inserted: Type.Integer(),
  updated: Type.Integer({ description: 'Rows merged into an existing contact (mergeStrategy).' }),
  success: Type.Integer({ description: 'inserted + updated.' }),
  contacts: Type.Array(Contact, {
    description: 'The contacts of the first 100 data rows only, to keep the answer small.',
  }),
  errors: Type.Array(UploadError, {
    description:
      'The rows that failed, with their code (CONT-001, CONT-003, VAL-001): the first 1,000 only (see `failed`).',
  }),
  failed: Type.Integer({ description: 'Rows that failed, all of them (`submitted` − `success`).' }),
});

export const ContactListQuery = Type.Object({
  ...PageQuery,
  firstName: Type.Optional(Type.String({ description: 'Partial, case-insensitive match.' })),
  lastName: Type.Optional(Type.String({ description: 'Partial, case-insensitive match.' })),
  mobile: Type.Optional(Type.String({ description: 'Partial match on the E.164 number.' })),
  email: Type.Optional(Type.String({ description: 'Partial, case-insensitive match.' })),
  tags: Type.Optional(
    Type.String({ description: 'Partial match on a tag; several separated by commas must all match.' }),
  ),
  q: Type.Optional(
    Type.String({ description: 'Partial match across first and last name, email and mobile.' }),
  ),
});
