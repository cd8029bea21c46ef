import { parse } from 'csv-parse/sync';
import { type Db, withTx } from '../../db/client.ts';
import { findContacts, type MergeMode } from '../../db/queries/contacts.ts';
import { fieldsToRecord, type UpsertRecord, upsertContactsSet } from '../../db/queries/contacts-merge.ts';
import { AppError, fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type ContactInput, toContactFields } from './contact-input.ts';
import { presentContacts } from './get-contact.ts';
import type { Contact } from './present-contact.ts';

/** Rows per set-based statement. */
export const UPLOAD_CHUNK = 10_000;
/** Rows whose contacts the answer carries (the body stays small for big uploads). */
export const UPLOAD_ANSWERED_ROWS = 100;

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

function rowToInput(row: Record<string, string>): ContactInput {
  const input: ContactInput = {};
  const attributes: Record<string, string> = {};
  for (const [column, raw] of Object.entries(row)) {
    const value = (raw ?? '').trim();
    const core = CORE_COLUMNS[column.toLowerCase().replace(/[\s_-]/g, '')];
    if (!core) {
      // Every other column is an attribute; an empty cell says nothing about it.
      if (value !== '' && column.trim() !== '') attributes[column.trim()] = value;
      continue;
    }
    if (value === '') continue;
    if (core === 'tags') input.tags = value.split(';');
    else (input as Record<string, string>)[core] = value;
  }
  if (Object.keys(attributes).length > 0) input.attributes = attributes;
  return input;
}

function parseCsv(text: string): Record<string, string>[] {
  try {
    return parse(text, {
      columns: (header: string[]) => header.map((h) => h.trim()),
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: false,
    }) as Record<string, string>[];
  } catch (err) {
    fail('CONT-004', `The CSV upload is invalid: ${(err as Error).message}`);
  }
}

/**
 * Imports contacts from CSV (header row; `mobile` required, `country` reads national numbers,
 * `tags` split on `;`, other columns become attributes). Rows are validated in Node, then written
 * set-based in chunks of UPLOAD_CHUNK rows, one transaction for the whole upload, with their
 * contact-created / contact-updated events. A mobile already in the account is merged per
 * mergeStrategy, or is an error row (CONT-003) without one; a mobile repeated in the file is
 * treated as if the rows came one after the other.
 */
export async function uploadContacts(
  db: Db,
  accountId: string,
  csv: string,
  mergeStrategy: Exclude<MergeMode, 'set'> | undefined,
  by: Actor,
): Promise<UploadResult> {
  const rows = parseCsv(csv);
  if (
    rows.length > 0 &&
    !Object.keys(rows[0]).some((c) => CORE_COLUMNS[c.toLowerCase().replace(/[\s_-]/g, '')] === 'mobile')
  ) {
    fail('CONT-004', 'The CSV upload needs a header row with a `mobile` column.');
  }
  const now = new Date();
  const errors: UploadError[] = [];
  // Round k holds the k-th occurrence of each mobile, so no statement sees one mobile twice.
  const rounds: UpsertRecord[][] = [];
  const seen = new Map<string, number>();
  rows.forEach((raw, index) => {
    const row = index + 1;
    try {
      const fields = toContactFields(rowToInput(raw), { requireMobile: true, now });
      const number = fields.mobile!.number;
      const occurrence = seen.get(number) ?? 0;
      seen.set(number, occurrence + 1);
      if (occurrence > 0 && !mergeStrategy)
        fail('CONT-003', 'This mobile number appears earlier in the upload.');
      rounds[occurrence] ??= [];
      rounds[occurrence].push({ ...fieldsToRecord(fields), id: newId(), row, event_id: newId() });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      errors.push({ row, input: raw, error: { code: err.code, description: err.message } });
    }
  });

  const written = await withTx(db, async (tx) => {
    const ok: { id: string; row: number; created: boolean }[] = [];
    for (const round of rounds) {
      for (let i = 0; i < round.length; i += UPLOAD_CHUNK) {
        const chunk = round.slice(i, i + UPLOAD_CHUNK);
        const r = await upsertContactsSet(tx, accountId, chunk, mergeStrategy, by);
        for (const x of r.inserted) ok.push({ ...x, created: true });
        for (const x of r.updated) ok.push({ ...x, created: false });
        for (const row of r.duplicates) {
          errors.push({
            row,
            input: rows[row - 1],
            error: { code: 'CONT-003', description: 'A contact with this mobile number already exists.' },
          });
        }
      }
    }
    return ok;
  });

  const firstIds = written.filter((w) => w.row <= UPLOAD_ANSWERED_ROWS).sort((a, b) => a.row - b.row);
  const found = await findContacts(db, accountId, [...new Set(firstIds.map((w) => w.id))]);
  const byId = new Map((await presentContacts(db, accountId, found)).map((c) => [c.id, c]));
  const contacts = [...new Set(firstIds.map((w) => w.id))]
    .map((id) => byId.get(id))
    .filter((c): c is Contact => !!c);
  const inserted = written.filter((w) => w.created).length;
  errors.sort((a, b) => a.row - b.row);
  return {
    submitted: rows.length,
    inserted,
    updated: written.length - inserted,
    success: written.length,
    contacts,
    errors,
  };
}
