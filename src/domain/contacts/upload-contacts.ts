import type { Readable } from 'node:stream';
import { type Db, withTx } from '../../db/client.ts';
import { findContacts, type MergeMode } from '../../db/queries/contacts.ts';
import { contactsCreated } from '../../db/statistics.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import {
  cellsByHeader,
  hasMobileColumn,
  type InputRow,
  type UploadError,
  type Written,
  writeBatch,
} from './contact-rows.ts';
import { csvRecords, nextRecord } from './csv-records.ts';
import { presentContacts } from './get-contact.ts';
import type { Contact } from './present-contact.ts';

/** Rows per set-based statement, and the most rows held in memory at once. */
export const UPLOAD_CHUNK = 10_000;
/** Failed rows the answer lists (all are counted in `failed`). */
export const UPLOAD_ANSWERED_ERRORS = 1000;

/** The answer to a CSV upload. */
export interface UploadResult {
  submitted: number;
  inserted: number;
  updated: number;
  success: number;
  contacts: Contact[];
  errors: UploadError[];
  failed: number;
}

/**
 * Imports contacts from CSV (header row; `mobile` required, `country` reads national numbers,
 * `tags` split on `;`, other columns become attributes), read as a stream: at most UPLOAD_CHUNK rows
 * are held at once, each batch validated in Node and written set-based with its contact-created /
 * contact-updated events, all in one transaction. A row with an invalid value is reported in
 * `errors` and the others are written; a malformed file or a row over a limit (columns, row size,
 * attributes) refuses the whole upload with 400 and nothing is written. A mobile already in the
 * account is merged per mergeStrategy, or is an error row (CONT-003) without one; a mobile repeated
 * in the file is treated as if the rows came one after the other.
 */
export async function uploadContacts(
  db: Db,
  accountId: string,
  source: Readable,
  mergeStrategy: Exclude<MergeMode, 'set'> | undefined,
  by: Actor,
): Promise<UploadResult> {
  const records = csvRecords(source)[Symbol.asyncIterator]();
  try {
    const header = (await nextRecord(records))?.map((h) => h.trim());
    if (header && !hasMobileColumn(header))
      fail('CONT-004', 'The CSV upload needs a header row with a `mobile` column.');
    const now = new Date();
    const errors: UploadError[] = [];
    let failed = 0;
    let submitted = 0;
    // Numbers seen so far, as numbers (E.164 digits fit a double exactly): a compact set for the file.
    const seen = new Set<number>();

    // Only counts and the first rows' ids are kept: a 16 MiB upload holds no list of what it wrote.
    const written: Written = { inserted: 0, updated: 0, first: [] };
    await withTx(db, async (tx) => {
      let batch: InputRow[] = [];
      const flush = async () => {
        const batchErrors = await writeBatch(tx, accountId, batch, { now, seen, mergeStrategy, by, written });
        failed += batchErrors.length;
        for (const e of batchErrors) if (errors.length < UPLOAD_ANSWERED_ERRORS) errors.push(e);
        batch = [];
      };
      for (let cells = await nextRecord(records); cells; cells = await nextRecord(records)) {
        batch.push({ row: ++submitted, input: cellsByHeader(header ?? [], cells) });
        if (batch.length >= UPLOAD_CHUNK) await flush();
      }
      if (batch.length > 0) await flush();
    });
    contactsCreated(db, written.inserted);

    const ids = [...new Set(written.first.sort((a, b) => a.row - b.row).map((w) => w.id))];
    const byId = new Map(
      (await presentContacts(db, accountId, await findContacts(db, accountId, ids))).map((c) => [c.id, c]),
    );
    return {
      submitted,
      inserted: written.inserted,
      updated: written.updated,
      success: written.inserted + written.updated,
      contacts: ids.map((id) => byId.get(id)).filter((c): c is Contact => !!c),
      errors,
      failed,
    };
  } finally {
    source.destroy();
  }
}
