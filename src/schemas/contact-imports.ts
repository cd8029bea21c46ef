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

export const ContactImportQuery = CreateContactQuery;

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
