import { createReadStream } from 'node:fs';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { getContactImport, listContactImportsPage } from '../../domain/contacts/get-contact-import.ts';
import { startContactImport } from '../../domain/contacts/start-contact-import.ts';
import { AppError, fail } from '../../errors.ts';
import { Collection, Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import {
  ContactImport,
  ContactImportBody,
  ContactImportListQuery,
  ContactImportQuery,
  IMPORT_LIMITS,
} from '../../schemas/contact-imports.ts';
import { CSV_BODY_LIMIT } from '../../schemas/limits.ts';
import { SpooledUpload, spoolUpload } from '../../storage/spooled-upload.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const closing = { headers: { connection: 'close' } };
/** The multipart fields the CSV may come in. */
const FILE_FIELDS = ['file', 'csv'];

/** A multipart parser error as the client's mistake (400 CONT-004, 413 VAL-003); anything else is left as it is. */
function multipartError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  if (e.code === 'FST_REQ_FILE_TOO_LARGE')
    return new AppError('VAL-003', `The upload is larger than ${CSV_BODY_LIMIT / 1024 / 1024} MiB.`, closing);
  if (e.code === 'FST_FILES_LIMIT')
    return new AppError('CONT-004', 'The form carries more than one file: send one CSV file.', closing);
  if (e.code?.startsWith('FST_') || /multipart|unexpected end of form|malformed/i.test(e.message ?? ''))
    return new AppError(
      'CONT-004',
      `The multipart body is malformed: ${e.message ?? 'unreadable'}.`,
      closing,
    );
  return err;
}

/** The CSV file of a multipart form (field `file` or `csv`), spooled as it streams; its name beside it. */
async function spoolMultipart(req: FastifyRequest): Promise<{ upload: SpooledUpload; fileName: string }> {
  let spooled: { upload: SpooledUpload; fileName: string } | undefined;
  try {
    const parts = req.parts({
      limits: {
        fileSize: CSV_BODY_LIMIT + 1,
        files: 1,
        fields: 10,
        fieldSize: 1024,
        parts: 11,
        headerPairs: 50,
      },
    });
    for await (const part of parts) {
      if (part.type !== 'file') continue;
      if (!FILE_FIELDS.includes(part.fieldname)) {
        part.file.resume();
        fail('CONT-004', `The file is in the field \`${part.fieldname}\`: send it as \`file\`.`, closing);
      }
      spooled = { upload: await spoolUpload(part.file, CSV_BODY_LIMIT), fileName: part.filename };
    }
  } catch (err) {
    await spooled?.upload.remove();
    throw multipartError(err);
  }
  if (!spooled) fail('CONT-004', 'The multipart body has no file in the field `file`.');
  return spooled;
}

const fileNames = new WeakMap<FastifyRequest, string>();

/**
 * Background CSV imports of contacts: POST stages the file and answers 202 with the import; the
 * `contact-imports` worker writes it chunk by chunk; GET shows its progress.
 */
export async function contactImportRoutes(app: App) {
  await app.register(multipart, { limits: { fileSize: CSV_BODY_LIMIT + 1, files: 1 } });

  app.post(
    '/v1/accounts/:accountId/contacts/imports',
    {
      // A text/csv body arrives spooled to a file (plugins/content-types.ts); a form's file is spooled below.
      config: { scope: 'contacts:write', csvUpload: true },
      preValidation: async (req) => {
        if (!req.isMultipart()) return;
        const { upload, fileName } = await spoolMultipart(req);
        req.body = upload;
        fileNames.set(req, fileName);
      },
      schema: {
        tags: ['contacts'],
        summary: 'Import contacts from a CSV file in the background',
        description:
          'Answers 202 with the import (`queued`) once the file is read and its rows staged; a worker then writes them ' +
          'chunk by chunk (BULK_CHUNK_SIZE rows per transaction), and `GET …/contacts/imports/{importId}` shows the ' +
          'progress. Send the CSV as a multipart form (field `file`) or as the `text/csv` body. The columns are those ' +
          'of the CSV upload of `POST …/contacts`. The file as a whole is checked before anything is staged: an empty ' +
          'file, a header without a `mobile` column, no data rows, malformed quoting or more than the limits — ' +
          `${IMPORT_LIMITS} — is refused with nothing imported. A row with a bad value (mobile, e-mail, ` +
          'attributes over a limit, a mobile already in the account without `mergeStrategy`) does not stop the ' +
          'import: it is skipped, counted in `counts.failed` and listed with its line in `errors`; the good rows are ' +
          'imported. Events: `contact-created` / `contact-updated` per contact, as `POST …/contacts` writes them. ' +
          'Consent: with `consentColumn` (and optionally `consentAtColumn`) each row that says yes, or with ' +
          '`consentText`, `consentDate` and `consentMethod` every row, records the consent on its contact as a lead ' +
          'form does: the attributes `consentText`, `consentSource` (“Contact import “<file>” (<import id>)”, with ' +
          '“, by <method>” for a statement) and `consentAt`, and the opt-in time when the row gives none. Rows ' +
          'without consent are imported without it. With `mergeStrategy=core` an existing contact’s attributes, ' +
          'consent included, stay as they are. Consent options that do not fit the file: 400 VAL-001, nothing staged.',
        params: IdParam('accountId'),
        querystring: ContactImportQuery,
        body: ContactImportBody,
        response: { 202: Envelope(ContactImport), ...errorResponses() },
      },
    },
    async (req, reply) => {
      if (!(req.body instanceof SpooledUpload))
        fail('VAL-004', 'Send the CSV file as a multipart form (field `file`) or as a text/csv body.');
      const imp = await startContactImport(
        app.ctx.db,
        req.params.accountId,
        createReadStream(req.body.file),
        {
          fileName: fileNames.get(req),
          mergeStrategy: req.query.mergeStrategy,
          consent: {
            consentColumn: req.query.consentColumn,
            consentAtColumn: req.query.consentAtColumn,
            consentText: req.query.consentText,
            consentDate: req.query.consentDate,
            consentMethod: req.query.consentMethod,
          },
          by: req.actor,
        },
      );
      return reply.code(202).send(ok(imp));
    },
  );

  app.get(
    '/v1/accounts/:accountId/contacts/imports',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags: ['contacts'],
        summary: 'List contact imports',
        description: 'Newest first; `status` filters.',
        params: IdParam('accountId'),
        querystring: ContactImportListQuery,
        response: { 200: Collection(ContactImport), ...errorResponses() },
      },
    },
    async (req) => page(await listContactImportsPage(app.ctx.db, req.params.accountId, req.query), (i) => i),
  );

  app.get(
    '/v1/accounts/:accountId/contacts/imports/:importId',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags: ['contacts'],
        summary: 'Get a contact import (its progress)',
        description:
          '`counts.processed` of `counts.total` rows are done (committed chunk by chunk); `errors` lists the first ' +
          'failed rows with their lines. 404 CONT-006 for an unknown, malformed or another account’s id.',
        params: IdParam('accountId', 'importId'),
        response: { 200: Envelope(ContactImport), ...errorResponses() },
      },
    },
    async (req) => ok(await getContactImport(app.ctx.db, req.params.accountId, req.params.importId)),
  );
}
