import type { Readable } from 'node:stream';
import { type Db, type Queryable, withTx } from '../../db/client.ts';
import { findContacts, type MergeMode } from '../../db/queries/contacts.ts';
import { fieldsToRecord, type UpsertRecord, upsertContactsSet } from '../../db/queries/contacts-merge.ts';
import { AppError, fail, recordedError } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { checkAttributes, rethrowAttributeLimit } from './attribute-limits.ts';
import { type ContactInput, toContactFields } from './contact-input.ts';
import { csvRecords, nextRecord } from './csv-records.ts';
import { presentContacts } from './get-contact.ts';
import type { Contact } from './present-contact.ts';

/** Rows per set-based statement, and the most rows held in memory at once. */
export const UPLOAD_CHUNK = 10_000;
/** Rows whose contacts the answer carries (the body stays small for big uploads). */
export const UPLOAD_ANSWERED_ROWS = 100;
/** Failed rows the answer lists (all are counted in `failed`). */
export const UPLOAD_ANSWERED_ERRORS = 1000;

/** A row of an upload that failed. `row` counts data rows from 1 (the header is not counted). */
export interface UploadError {
  row: number;
  input: Record<string, string>;
  error: { code: string; description: string };
}

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

// Header names are matched ignoring case, spaces, dashes and underscores.
const CORE_COLUMNS: Record<string, keyof ContactInput | 'country'> = {
  firstname: 'firstName',
  lastname: 'lastName',
  email: 'email',
  mobile: 'mobile',
  mobilenumber: 'mobile',
  phone: 'mobile',
  phonenumber: 'mobile',
  number: 'mobile',
  country: 'country',
  mobilecountry: 'country',
  tags: 'tags',
  optin: 'optIn',
  blocked: 'blocked',
};

const coreColumn = (name: string) => CORE_COLUMNS[name.toLowerCase().replace(/[\s_-]/g, '')];

function rowToInput(row: Record<string, string>, rowNumber: number): ContactInput {
  const input: ContactInput = {};
  const attributes: Record<string, string> = {};
  for (const [column, raw] of Object.entries(row)) {
    const value = (raw ?? '').trim();
    const core = coreColumn(column);
    if (!core) {
      // Every other column is an attribute; an empty cell says nothing about it.
      if (value !== '' && column.trim() !== '') attributes[column.trim()] = value;
      continue;
    }
    if (value === '') continue;
    if (core === 'tags') input.tags = value.split(';');
    else (input as Record<string, string>)[core] = value;
  }
  if (Object.keys(attributes).length > 0) {
    // Over a limit, the whole upload is refused (400 naming the row), not just this row.
    checkAttributes(attributes, `Row ${rowNumber}: `);
    input.attributes = attributes;
  }
  return input;
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
    if (header && !header.some((c) => coreColumn(c) === 'mobile'))
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
      let batch: { row: number; input: Record<string, string> }[] = [];
      const flush = async () => {
        const batchErrors = await writeBatch(tx, accountId, batch, { now, seen, mergeStrategy, by, written });
        failed += batchErrors.length;
        for (const e of batchErrors) if (errors.length < UPLOAD_ANSWERED_ERRORS) errors.push(e);
        batch = [];
      };
      for (let cells = await nextRecord(records); cells; cells = await nextRecord(records)) {
        const input: Record<string, string> = {};
        for (let i = 0; i < cells.length && header && i < header.length; i++) input[header[i]] = cells[i];
        batch.push({ row: ++submitted, input });
        if (batch.length >= UPLOAD_CHUNK) await flush();
      }
      if (batch.length > 0) await flush();
    });

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

/** What an upload wrote so far. */
interface Written {
  inserted: number;
  updated: number;
  /** The contacts of rows up to UPLOAD_ANSWERED_ROWS, for the answer. */
  first: { id: string; row: number }[];
}

/**
 * Validates and writes one batch of rows; answers its failed rows in row order. Round k of the
 * batch holds the k-th occurrence of each mobile in it, so no statement sees one mobile twice.
 */
async function writeBatch(
  tx: Queryable,
  accountId: string,
  batch: { row: number; input: Record<string, string> }[],
  opts: {
    now: Date;
    seen: Set<number>;
    mergeStrategy: Exclude<MergeMode, 'set'> | undefined;
    by: Actor;
    written: Written;
  },
): Promise<UploadError[]> {
  const errors: UploadError[] = [];
  const rounds: UpsertRecord[][] = [];
  const inBatch = new Map<number, number>();
  for (const { row, input } of batch) {
    const contact = rowToInput(input, row);
    try {
      const fields = toContactFields(contact, { requireMobile: true, now: opts.now });
      const key = Number(fields.mobile!.number.slice(1));
      if (opts.seen.has(key) && !opts.mergeStrategy)
        fail('CONT-003', 'This mobile number appears earlier in the upload.');
      opts.seen.add(key);
      const occurrence = inBatch.get(key) ?? 0;
      inBatch.set(key, occurrence + 1);
      rounds[occurrence] ??= [];
      rounds[occurrence].push({ ...fieldsToRecord(fields), id: newId(), row, event_id: newId() });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      errors.push({ row, input, error: { code: err.code, description: err.message } });
    }
  }
  const inputs = new Map(batch.map((b) => [b.row, b.input]));
  for (const round of rounds) {
    const r = await upsertContactsSet(tx, accountId, round, opts.mergeStrategy, opts.by).catch(
      rethrowAttributeLimit,
    );
    opts.written.inserted += r.inserted.length;
    opts.written.updated += r.updated.length;
    for (const x of [...r.inserted, ...r.updated])
      if (x.row <= UPLOAD_ANSWERED_ROWS) opts.written.first.push(x);
    for (const row of r.duplicates) {
      errors.push({
        row,
        input: inputs.get(row) ?? {},
        error: recordedError('CONT-003'),
      });
    }
  }
  return errors.sort((a, b) => a.row - b.row);
}
