/** CSV read as a stream for uploads: records as arrays of cells, within the limits of columns and row size. */
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { AppError, fail } from '../../errors.ts';
import { MAX_CSV_COLUMNS, MAX_CSV_RECORD_CHARS } from '../../schemas/limits.ts';

/**
 * Passes CSV bytes through, refusing a row with more than MAX_CSV_COLUMNS cells before the parser
 * collects them (a line of a million commas would otherwise become a million-cell array). Counts
 * delimiters outside double quotes; one pass, and csv-parse stays at full speed (its per-cell
 * `cast` hook, the other way to count, made it ten times slower).
 */
class ColumnGuard extends Transform {
  private quoted = false;
  private cells = 1;
  private line = 1;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === 0x22) this.quoted = !this.quoted;
      else if (this.quoted) continue;
      else if (b === 0x2c) {
        if (++this.cells > MAX_CSV_COLUMNS)
          return done(
            new AppError(
              'CONT-004',
              `The CSV upload has more than ${MAX_CSV_COLUMNS} columns (line ${this.line}); at most ${MAX_CSV_COLUMNS} are allowed.`,
            ),
          );
      } else if (b === 0x0a || b === 0x0d) {
        if (b === 0x0a) this.line++;
        this.cells = 1;
      }
    }
    done(null, chunk);
  }
}

const PARSE_OPTIONS = {
  bom: true,
  skip_empty_lines: true,
  relax_column_count: true,
  trim: false,
  max_record_size: MAX_CSV_RECORD_CHARS,
} as const;

function guarded<T>(source: Readable, parser: Transform): AsyncIterable<T> {
  const guard = new ColumnGuard();
  source.on('error', (err) => guard.destroy(err));
  guard.on('error', (err) => parser.destroy(err));
  return source.pipe(guard).pipe(parser);
}

/** A CSV parser over the stream: records as arrays of strings, at most MAX_CSV_COLUMNS cells each. */
export function csvRecords(source: Readable): AsyncIterable<string[]> {
  return guarded(source, parse(PARSE_OPTIONS));
}

/** A record with the file line it starts on (1: the first line). */
export interface LinedRecord {
  cells: string[];
  line: number;
}

/** csvRecords with each record's first line (blank lines and quoted line breaks counted). */
export async function* csvLinedRecords(source: Readable): AsyncGenerator<LinedRecord> {
  const records = guarded<{ record: string[]; info: { lines: number; empty_lines: number } }>(
    source,
    parse({ ...PARSE_OPTIONS, info: true }),
  );
  let lastEnd = 0;
  let lastEmpty = 0;
  for await (const { record, info } of records) {
    // csv-parse reports the line a record ends on; it starts after the previous one and the blank lines between.
    const line = lastEnd + 1 + (info.empty_lines - lastEmpty);
    lastEnd = info.lines;
    lastEmpty = info.empty_lines;
    yield { cells: record, line };
  }
}

/** Reads the next record, turning the parser's complaints into CONT-004. */
export async function nextRecord<T = string[]>(records: AsyncIterator<T>): Promise<T | undefined> {
  try {
    const r = await records.next();
    return r.done ? undefined : r.value;
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof CsvError && err.code === 'CSV_MAX_RECORD_SIZE')
      fail(
        'CONT-004',
        `A row of the CSV upload is longer than ${MAX_CSV_RECORD_CHARS} characters (line ${err.lines}).`,
      );
    if (err instanceof CsvError) fail('CONT-004', `The CSV upload is invalid: ${err.message}`);
    throw err;
  }
}
