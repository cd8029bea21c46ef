/**
 * CSV rows as contacts: the header's columns, a row as a ContactInput, and a batch of rows
 * validated in Node and written set-based. Shared by the synchronous upload (POST …/contacts,
 * text/csv) and the background import (POST …/contacts/imports).
 */
import { type Queryable, withSavepoint } from '../../db/client.ts';
import type { MergeMode } from '../../db/queries/contacts.ts';
import { fieldsToRecord, type UpsertRecord, upsertContactsSet } from '../../db/queries/contacts-merge.ts';
import { accountHomeCountry } from '../../db/queries/home-country.ts';
import { AppError, fail, recordedError } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { checkAttributes, rethrowAttributeLimit } from './attribute-limits.ts';
import { type ContactInput, toContactFields } from './contact-input.ts';

/** Rows whose contacts the upload's answer carries (the body stays small for big uploads). */
export const UPLOAD_ANSWERED_ROWS = 100;

/** A row of an upload that failed. `row` counts data rows from 1 (the header is not counted). */
export interface UploadError {
  row: number;
  input: Record<string, string>;
  error: { code: string; description: string };
}

/** A data row: its number (from 1) and its cells by header name. */
export interface InputRow {
  row: number;
  input: Record<string, string>;
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

/** The contact field a header names, if any. */
export const coreColumn = (name: string) => CORE_COLUMNS[name.toLowerCase().replace(/[\s_-]/g, '')];

/** Whether a header row has a `mobile` column (under any of its names). */
export const hasMobileColumn = (header: string[]) => header.some((c) => coreColumn(c) === 'mobile');

/** A row's cells by header name (cells past the header are dropped). */
export function cellsByHeader(header: string[], cells: string[]): Record<string, string> {
  const input: Record<string, string> = {};
  for (let i = 0; i < cells.length && i < header.length; i++) input[header[i]] = cells[i];
  return input;
}

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
    checkAttributes(attributes, `Row ${rowNumber}: `);
    input.attributes = attributes;
  }
  return input;
}

/** What a batch wrote so far (counts, and the first rows' contact ids for the upload's answer). */
export interface Written {
  inserted: number;
  updated: number;
  /** The contacts of rows up to UPLOAD_ANSWERED_ROWS. */
  first: { id: string; row: number }[];
}

/** How a batch is written. */
export interface BatchOptions {
  now: Date;
  /** Mobiles seen so far in the file (as numbers: E.164 digits fit a double exactly). */
  seen: Set<number>;
  mergeStrategy: Exclude<MergeMode, 'set'> | undefined;
  by: Actor;
  written: Written;
  /**
   * A row over an attribute limit is that row's error (the import) rather than a refusal of the
   * whole file (the synchronous upload, which answers 400 naming the row).
   */
  limitsPerRow?: boolean;
}

const rowError = (row: InputRow, err: AppError): UploadError => ({
  row: row.row,
  input: row.input,
  error: { code: err.code, description: err.message },
});

/**
 * Validates and writes one batch of rows; answers its failed rows in row order. Round k of the
 * batch holds the k-th occurrence of each mobile in it, so no statement sees one mobile twice.
 */
export async function writeBatch(
  tx: Queryable,
  accountId: string,
  batch: InputRow[],
  opts: BatchOptions,
): Promise<UploadError[]> {
  const errors: UploadError[] = [];
  const rounds: UpsertRecord[][] = [];
  const inBatch = new Map<number, number>();
  // National numbers are read in the account's country (messaging/phone.ts, readingCountry).
  const homeCountry = await accountHomeCountry(tx, accountId);
  for (const b of batch) {
    const { row, input } = b;
    const contact = opts.limitsPerRow ? undefined : rowToInput(input, row);
    try {
      const fields = toContactFields(contact ?? rowToInput(input, row), {
        requireMobile: true,
        now: opts.now,
        homeCountry,
      });
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
      errors.push(rowError(b, err));
    }
  }
  const inputs = new Map(batch.map((b) => [b.row, b]));
  for (const round of rounds) {
    const r = opts.limitsPerRow
      ? await upsertEachOnFailure(tx, accountId, round, opts, inputs, errors)
      : await upsertContactsSet(tx, accountId, round, opts.mergeStrategy, opts.by).catch(
          rethrowAttributeLimit,
        );
    opts.written.inserted += r.inserted.length;
    opts.written.updated += r.updated.length;
    for (const x of [...r.inserted, ...r.updated])
      if (x.row <= UPLOAD_ANSWERED_ROWS) opts.written.first.push(x);
    for (const row of r.duplicates) {
      errors.push({
        row,
        input: inputs.get(row)?.input ?? {},
        error: recordedError('CONT-003'),
      });
    }
  }
  return errors.sort((a, b) => a.row - b.row);
}

type UpsertResult = Awaited<ReturnType<typeof upsertContactsSet>>;

/**
 * The round in one statement; should a merge go over an attribute limit (checked in SQL on the
 * merged result), record by record, each in a savepoint, the failing ones as row errors.
 */
async function upsertEachOnFailure(
  tx: Queryable,
  accountId: string,
  round: UpsertRecord[],
  opts: BatchOptions,
  inputs: Map<number, InputRow>,
  errors: UploadError[],
): Promise<UpsertResult> {
  const set = (records: UpsertRecord[]) =>
    withSavepoint(tx, () =>
      upsertContactsSet(tx, accountId, records, opts.mergeStrategy, opts.by).catch(rethrowAttributeLimit),
    );
  try {
    return await set(round);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
  }
  const out: UpsertResult = { inserted: [], updated: [], duplicates: [] };
  for (const record of round) {
    try {
      const r = await set([record]);
      out.inserted.push(...r.inserted);
      out.updated.push(...r.updated);
      out.duplicates.push(...r.duplicates);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const row = inputs.get(record.row as number) ?? { row: record.row as number, input: {} };
      errors.push(rowError(row, err));
    }
  }
  return out;
}
