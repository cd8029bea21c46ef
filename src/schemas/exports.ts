import { Type } from '@sinclair/typebox';
import { LiteralUnion } from './common.ts';
import { MESSAGE_STATUSES } from './messages.ts';

/** A CSV answer: streamed, UTF-8 with a byte-order mark, one header row. */
export const CsvFile = (description: string) => ({
  description,
  content: { 'text/csv': { schema: Type.String({ description: 'CSV (RFC 4180), UTF-8 with a BOM.' }) } },
});

/** What every export says of its cells. */
export const CSV_CELLS =
  'Cells a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return, ' +
  "unless the cell is a plain number such as a mobile `+12025550123`) are prefixed with `'` (OWASP, CSV injection).";

/** GET …/contacts/export: the contact list's filters, without paging. */
export const ContactExportQuery = Type.Object(
  {
    firstName: Type.Optional(
      Type.String({ maxLength: 200, description: 'Partial, case-insensitive match.' }),
    ),
    lastName: Type.Optional(Type.String({ maxLength: 200, description: 'Partial, case-insensitive match.' })),
    mobile: Type.Optional(Type.String({ maxLength: 200, description: 'Partial match on the E.164 number.' })),
    email: Type.Optional(Type.String({ maxLength: 200, description: 'Partial, case-insensitive match.' })),
    tags: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'Partial match on a tag; several separated by commas must all match.',
      }),
    ),
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Partial match across first and last name, email and mobile.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** GET …/messages/export: a period (required), a status and a direction. */
export const MessageExportQuery = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'Created at or after.' }),
    to: Type.String({ format: 'date-time', description: 'Created before; at most 366 days after `from`.' }),
    status: Type.Optional(LiteralUnion(MESSAGE_STATUSES)),
    direction: Type.Optional(LiteralUnion(['outbound', 'inbound'] as const)),
  },
  { additionalProperties: false },
);
