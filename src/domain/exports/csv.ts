/** CSV for the exports: csv-stringify over rows read in batches, every cell made safe for spreadsheets. */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/** Rows read per query of an export: the memory an export holds is one batch, whatever its size. */
export const EXPORT_BATCH = 1_000;

// A cell starting with one of these is a formula to Excel, LibreOffice and Google Sheets
// (OWASP "CSV Injection"): =, +, -, @, tab and carriage return.
const FORMULA_START = /^[=+\-@\t\r]/;
// …except a plain number ("+12025550123", "-3.5"): a spreadsheet reads it as a number, not a
// formula, and a mobile number must stay as it is.
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * A cell as written: text that a spreadsheet would run as a formula is prefixed with a single
 * quote (shown as text, run as nothing); numbers and booleans as they are; nothing as empty.
 */
export function safeCell(value: unknown): string | number | boolean {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text =
    value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : JSON.stringify(value);
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/**
 * The CSV text of a header and rows, streamed: rows are pulled from `rows` only as the reader takes
 * the text (backpressure), so a 100,000-row export holds one batch at a time. UTF-8 with a BOM (so
 * that Excel reads names with accents), CRLF line ends (RFC 4180). `onClose` runs once when the
 * stream ends, fails or is abandoned by its reader.
 */
export function csvStream(header: string[], rows: AsyncIterable<unknown[]>, onClose: () => void): Readable {
  async function* cells() {
    yield header.map(safeCell);
    for await (const row of rows) yield row.map(safeCell);
  }
  const source = Readable.from(cells());
  const out = stringify({ bom: true, record_delimiter: 'windows' });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  source.on('error', (err) => out.destroy(err));
  out.on('close', () => {
    source.destroy();
    close();
  });
  out.on('end', close);
  out.on('error', close);
  return source.pipe(out);
}

/**
 * Rows read in batches of EXPORT_BATCH by key: `page(after)` answers the rows after the key
 * `after` (null: from the start) in key order, and `key(row)` a row's key.
 */
export async function* keyset<T>(
  page: (after: string | null, limit: number) => Promise<T[]>,
  key: (row: T) => string,
): AsyncGenerator<T> {
  let after: string | null = null;
  for (;;) {
    const rows = await page(after, EXPORT_BATCH);
    yield* rows;
    if (rows.length < EXPORT_BATCH) return;
    after = key(rows[rows.length - 1]);
  }
}

/** Exports running at once per account in this process: the third is refused (429 RATE-001). */
export const EXPORTS_PER_ACCOUNT = 2;
const running = new Map<string, number>();

/**
 * Takes one of the account's export slots, or answers undefined when they are all taken; the answer
 * gives it back (once, whatever the number of calls).
 */
export function takeExportSlot(accountId: string): (() => void) | undefined {
  const n = running.get(accountId) ?? 0;
  if (n >= EXPORTS_PER_ACCOUNT) return undefined;
  running.set(accountId, n + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const left = (running.get(accountId) ?? 1) - 1;
    if (left <= 0) running.delete(accountId);
    else running.set(accountId, left);
  };
}
