import { Type } from '@sinclair/typebox';
import { AuditStamp, ErrorObject, LiteralUnion, PageQuery } from './common.ts';
import { CreateContactQuery, CsvUpload } from './contacts.ts';
import { CSV_BODY_LIMIT, IMPORT_ERRORS_KEPT, MAX_CSV_COLUMNS, MAX_CSV_RECORD_CHARS } from './limits.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** The statuses of an import. */
export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;

/** A failed row of an import. */
export const ImportRowError = Type.Object({
  row: Type.Integer({ description: 'The data row, counted from 1 (the header row is not counted).' }),
  line: Type.Integer({ description: 'The file line the row starts on (the header is line 1).' }),
  mobile: Type.Optional(
    Type.String({ description: "The row's mobile cell as written (at most 64 characters)." }),
  ),
  error: ErrorObject,
});

/** How an import records consent, as it answers it. */
export const ImportConsent = Type.Object(
  {
    column: Type.Optional(Type.String({ description: 'The yes/no column of the file (`consentColumn`).' })),
    atColumn: Type.Optional(Type.String({ description: 'The column of consent times (`consentAtColumn`).' })),
    text: Type.String({
      description: 'What the contacts agreed to (`consentText`, or a default for a column).',
    }),
    at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the whole file agreed (`consentDate`).' }),
    ),
    method: Type.Optional(Type.String({ description: 'How the whole file agreed (`consentMethod`).' })),
  },
  { description: 'How the import records consent; left out when it records none.' },
);

/** A background CSV import of contacts (POST …/contacts/imports). */
export const ContactImport = Type.Object({
  id: Type.String(),
  status: LiteralUnion(IMPORT_STATUSES, {
    description:
      '`queued` (staged, waiting for a worker), `running`, `completed` (every row processed: see `counts`), ' +
      '`failed` (stopped, with `error`; the rows already imported stay).',
  }),
  fileName: Type.Optional(Type.String({ description: 'The uploaded file’s name (multipart).' })),
  mergeStrategy: Type.Optional(LiteralUnion(['append', 'core', 'remove'])),
  consent: Type.Optional(ImportConsent),
  counts: Type.Object(
    {
      total: Count('Data rows in the file.'),
      processed: Count('Rows processed so far (created + updated + failed).'),
      created: Count('Rows that created a contact.'),
      updated: Count('Rows merged into an existing contact (with `mergeStrategy`).'),
      failed: Count('Rows skipped with an error.'),
    },
    { description: 'Progress: `processed` of `total`, committed chunk by chunk.' },
  ),
  errors: Type.Array(ImportRowError, {
    description: `The first ${IMPORT_ERRORS_KEPT} failed rows, in row order (all are counted in \`counts.failed\`).`,
  }),
  error: Type.Optional(ErrorObject),
  created: AuditStamp,
  updated: AuditStamp,
  startedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When a worker began it.' })),
  finishedAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'When it completed or failed.' }),
  ),
});

export const ContactImportQuery = Type.Object({
  ...CreateContactQuery.properties,
  consentColumn: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Records consent from a column of the file: yes (`yes`, `y`, `true`, `1`, `x`, `agreed`) records it, no ' +
        '(`no`, `n`, `false`, `0`, `none`) or empty records none, anything else is that row’s error (VAL-001). ' +
        'Matched to a header like the contact columns (ignoring case, spaces, dashes, underscores); a contact ' +
        'field’s column is refused. The column is not stored as an attribute.',
    }),
  ),
  consentAtColumn: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'With `consentColumn`: a column of when each row agreed (a date or ISO 8601 date-time, not in the future; ' +
        'empty: the import’s time; unreadable: the row’s error). Not stored as an attribute.',
    }),
  ),
  consentText: Type.Optional(
    Type.String({
      maxLength: 4000,
      description:
        'What the contacts agreed to (1 to 1,000 characters). Required for a statement for the whole file; with ' +
        '`consentColumn` optional (default: “Agreed to receive texts (column “…” of the imported file).”).',
    }),
  ),
  consentDate: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'A statement for the whole file: the day (or date-time) every person in it agreed, not in the future. ' +
        'With `consentText` and `consentMethod`; not with `consentColumn`.',
    }),
  ),
  consentMethod: Type.Optional(
    Type.String({
      maxLength: 400,
      description:
        'A statement for the whole file: how they agreed (1 to 200 characters, e.g. “the paper sign-up sheet at our shop”).',
    }),
  ),
});

export const ContactImportListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(LiteralUnion(IMPORT_STATUSES)),
});

/** The multipart form: one CSV file in the field `file`. */
// No `required`: the body is checked as it streams (400 CONT-004 without the file).
const MultipartCsv = Type.Unsafe<unknown>({
  type: 'object',
  properties: { file: { type: 'string', contentMediaType: 'text/csv' } },
  description:
    'One file part named `file` (or `csv`): the CSV, as the text/csv body describes. Other fields are ignored.',
});

/** The request body of POST …/contacts/imports: multipart, or the CSV itself. */
export const ContactImportBody = {
  content: {
    'multipart/form-data': { schema: MultipartCsv },
    'text/csv': { schema: CsvUpload },
    'application/csv': { schema: CsvUpload },
  },
};

export const IMPORT_LIMITS =
  `${CSV_BODY_LIMIT / 1024 / 1024} MiB (413 VAL-003), ${MAX_CSV_COLUMNS} columns and ${MAX_CSV_RECORD_CHARS} ` +
  'characters per row (400 CONT-004 naming the line)';
