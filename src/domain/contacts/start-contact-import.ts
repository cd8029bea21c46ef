import type { Readable } from 'node:stream';
import { type Db, withBulkTx } from '../../db/client.ts';
import {
  insertContactImport,
  insertImportRows,
  type StagedRow,
  setImportTotal,
} from '../../db/queries/contact-imports.ts';
import type { MergeMode } from '../../db/queries/contacts.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { hasMobileColumn } from './contact-rows.ts';
import { csvLinedRecords, type LinedRecord, nextRecord } from './csv-records.ts';
import { type ImportConsentOptions, importConsent } from './import-consent.ts';
import { type ContactImport, presentContactImport } from './present-contact-import.ts';

/** Rows staged per statement (and the most held in memory at once). */
export const IMPORT_STAGE_BATCH = 5_000;

/**
 * Starts a background import of contacts from CSV (the rules of the synchronous upload: header
 * row, `mobile` required, `country`, `tags` split on `;`, other columns attributes). The file is
 * read as a stream and its rows staged, with the import (`queued`), in one transaction, at most
 * IMPORT_STAGE_BATCH rows in memory at once; the `contact-imports` worker then writes them chunk
 * by chunk. What is wrong with the file as a whole is refused here, before anything is staged,
 * with 400 CONT-004 naming the line: an empty file, a header without a `mobile` column, no data
 * rows, more than MAX_CSV_COLUMNS columns, a row over MAX_CSV_RECORD_CHARS, malformed quoting. A
 * row with a bad value is not: the worker reports it (with its line) and skips it. Consent options
 * that do not fit the header (import-consent.ts) are refused here too (400 VAL-001).
 */
export async function startContactImport(
  db: Db,
  accountId: string,
  source: Readable,
  opts: {
    fileName?: string;
    mergeStrategy?: Exclude<MergeMode, 'set'>;
    /** Consent the import records (import-consent.ts); none when every option is absent. */
    consent?: ImportConsentOptions;
    by: Actor;
  },
): Promise<ContactImport> {
  const records = csvLinedRecords(source);
  try {
    const first = await nextRecord<LinedRecord>(records);
    if (!first) fail('CONT-004', 'The CSV file is empty: it needs a header row with a `mobile` column.');
    const header = first.cells.map((h) => h.trim());
    if (!hasMobileColumn(header))
      fail(
        'CONT-004',
        `The CSV file needs a header row with a \`mobile\` column (line ${first.line} reads ${JSON.stringify(header.slice(0, 8).join(',').slice(0, 80))}).`,
      );
    const consent = importConsent(header, opts.consent ?? {});
    return await withBulkTx(db, async (tx) => {
      const id = newId();
      await insertContactImport(tx, accountId, {
        id,
        // Control characters (a NUL included, which PostgreSQL text cannot hold) are dropped from the name.
        fileName: printable(opts.fileName ?? '').slice(0, 255) || null,
        mergeStrategy: opts.mergeStrategy ?? null,
        header,
        consent,
        by: opts.by,
      });
      let total = 0;
      let batch: StagedRow[] = [];
      for (let r = await nextRecord(records); r; r = await nextRecord(records)) {
        batch.push({ row: ++total, line: r.line, cells: r.cells });
        if (batch.length >= IMPORT_STAGE_BATCH) {
          await insertImportRows(tx, accountId, id, batch);
          batch = [];
        }
      }
      if (batch.length > 0) await insertImportRows(tx, accountId, id, batch);
      if (total === 0) fail('CONT-004', 'The CSV file has a header row but no data rows.');
      return presentContactImport(await setImportTotal(tx, accountId, id, total));
    });
  } finally {
    source.destroy();
  }
}

/** The text without its control characters (C0 and DEL). */
function printable(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c >= 0x20 && c !== 0x7f) out += ch;
  }
  return out;
}
