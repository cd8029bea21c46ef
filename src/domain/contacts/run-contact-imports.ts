import type { Queryable } from '../../db/client.ts';
import {
  advanceContactImport,
  CONTACT_IMPORT_QUEUE,
  type ContactImportRow,
  failContactImport,
  type ImportRowError,
  nextImportRows,
} from '../../db/queries/contact-imports.ts';
import { contactsCreated } from '../../db/statistics.ts';
import { AppError } from '../../errors.ts';
import { IMPORT_ERRORS_KEPT } from '../../schemas/limits.ts';
import type { Actor } from '../actor.ts';
import type { Backoff } from '../claim.ts';
import type { ChunkedJobs } from '../jobs/run-chunks.ts';
import { cellsByHeader, coreColumn, type InputRow, type UploadError, writeBatch } from './contact-rows.ts';
import { consentCells, importConsentSource } from './import-consent.ts';

/** A chunk that fails unexpectedly is tried again after this backoff, then the import fails. */
export const IMPORT_BACKOFF: Backoff = { baseMs: 1_000, maxMs: 60_000, maxAttempts: 5 };

/**
 * Contact imports as the chunk engine runs them (`runChunks`, one transaction per chunk that holds
 * the import's row). A chunk writes the next `chunkSize` staged rows as contacts, with their
 * contact-created / contact-updated events, and in the same commit moves the counters and the
 * cursor, keeps the first row errors and drops the staged rows it did. A worker killed mid-chunk
 * leaves nothing of it: the next worker does the chunk from the same cursor, so no row is written or
 * counted twice. Rows with a bad value are counted in `failed` and skipped; a chunk that throws is
 * retried after IMPORT_BACKOFF and, after its last attempt, the import is `failed` (what was
 * imported stays).
 */
export const CONTACT_IMPORTS: ChunkedJobs<ContactImportRow> = {
  name: 'contact-imports',
  spec: CONTACT_IMPORT_QUEUE,
  describe: (i) => `import ${i.id} of account ${i.account_id}`,
  key: (i) => [i.account_id, i.id],
  attempts: (i) => i.attempts,
  backoff: IMPORT_BACKOFF,
  chunk: async (tx, imp, chunkSize, { db, log }) => {
    const created = await runImportChunk(tx, imp, chunkSize);
    // Counted once the chunk's transaction is under way to commit (statistics.ts waits for it).
    contactsCreated(db, created, log);
  },
};

/** One chunk of a locked import; answers how many contacts it created. */
async function runImportChunk(tx: Queryable, imp: ContactImportRow, chunkSize: number): Promise<number> {
  if (imp.attempts >= (IMPORT_BACKOFF.maxAttempts ?? Number.POSITIVE_INFINITY)) {
    await failContactImport(tx, imp, {
      code: 'CONT-007',
      description: `The import stopped after ${imp.attempts} failed attempts at rows after ${imp.cursor}; the rows before were imported.`,
    });
    return 0;
  }
  const staged = await nextImportRows(tx, imp, chunkSize);
  const lines = new Map(staged.map((s) => [s.row, s.line]));
  const written = { inserted: 0, updated: 0, first: [] };
  // Consent is applied row by row first: a row whose consent cannot be read is its error.
  const consentErrors: UploadError[] = [];
  const rows: InputRow[] = [];
  const source = imp.consent ? importConsentSource(imp, imp.consent) : '';
  for (const s of staged) {
    const input = cellsByHeader(imp.header, s.cells);
    if (!imp.consent) {
      rows.push({ row: s.row, input });
      continue;
    }
    try {
      rows.push({ row: s.row, input: consentCells(input, imp.consent, source, imp.created_at) });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      consentErrors.push({ row: s.row, input, error: { code: err.code, description: err.message } });
    }
  }
  const batchErrors = await writeBatch(tx, imp.account_id, rows, {
    now: new Date(),
    // Mobiles repeated across chunks meet the contact the earlier chunk made (CONT-003 or a merge).
    seen: new Set(),
    mergeStrategy: imp.merge_strategy ?? undefined,
    by: imp.created_by as Actor,
    written,
    limitsPerRow: true,
  });
  const failedRows = [...consentErrors, ...batchErrors].sort((a, b) => a.row - b.row);
  const errors: ImportRowError[] = failedRows.slice(0, IMPORT_ERRORS_KEPT).map((e) => ({
    row: e.row,
    line: lines.get(e.row) ?? 0,
    mobile: mobileCell(e.input),
    error: e.error,
  }));
  await advanceContactImport(tx, imp, {
    cursor: staged.at(-1)?.row ?? imp.cursor,
    processed: staged.length,
    created: written.inserted,
    updated: written.updated,
    failed: failedRows.length,
    errors,
    keep: IMPORT_ERRORS_KEPT,
    finished: staged.length < chunkSize || (staged.at(-1)?.row ?? 0) >= imp.total,
  });
  return written.inserted;
}

/** The row's mobile cell, shortened, for the error list. */
function mobileCell(input: Record<string, string>): string | undefined {
  for (const [column, value] of Object.entries(input))
    if (coreColumn(column) === 'mobile' && value.trim() !== '') return value.trim().slice(0, 64);
  return undefined;
}
