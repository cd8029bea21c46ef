/**
 * SQL of background contact imports (migration 0354): the import record, its staged rows, the
 * worker's queue and the chunk-by-chunk progress.
 */
import type { Queryable } from '../client.ts';
import type { QueueSpec } from './claim.ts';

/** A contact_imports row. */
export interface ContactImportRow {
  account_id: string;
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  file_name: string | null;
  merge_strategy: 'append' | 'core' | 'remove' | null;
  header: string[];
  /** How the import records consent (migration 0411); null: it records none. */
  consent: ImportConsent | null;
  total: number;
  processed: number;
  created: number;
  updated: number;
  failed: number;
  row_errors: ImportRowError[];
  error: { code: string; description: string } | null;
  cursor: number;
  attempts: number;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/**
 * How an import records consent: a yes/no `column` of the file (with an optional `atColumn` of
 * times), or one statement for the whole file (`at`, `method`); `text` is what was agreed to.
 */
export interface ImportConsent {
  column?: string;
  atColumn?: string;
  text: string;
  at?: string;
  method?: string;
}

/** A failed row as an import keeps it. */
export interface ImportRowError {
  row: number;
  line: number;
  mobile?: string;
  error: { code: string; description: string };
}

/** One staged row: its data-row number, the file line it starts on, its cells. */
export interface StagedRow {
  row: number;
  line: number;
  cells: string[];
}

/** The open imports, oldest first: a locked queue (the chunk commits with the row lock). */
export const CONTACT_IMPORT_QUEUE: QueueSpec = {
  table: 'contact_imports',
  key: ['account_id', 'id'],
  due: `q.status IN ('queued', 'running') AND (q.retry_at IS NULL OR q.retry_at <= now())`,
  order: 'q.created_at',
  attempts: 'attempts',
  retryAt: 'retry_at',
};

export async function insertContactImport(
  db: Queryable,
  accountId: string,
  r: {
    id: string;
    fileName: string | null;
    mergeStrategy: string | null;
    header: string[];
    consent: ImportConsent | null;
    by: object;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO contact_imports (account_id, id, file_name, merge_strategy, header, consent, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [accountId, r.id, r.fileName, r.mergeStrategy, JSON.stringify(r.header), r.consent, r.by],
  );
}

/** Stages a batch of rows of an import (one statement). */
export async function insertImportRows(
  db: Queryable,
  accountId: string,
  importId: string,
  rows: StagedRow[],
): Promise<void> {
  await db.query(
    `INSERT INTO contact_import_rows (account_id, import_id, "row", line, cells)
     SELECT $1, $2, r, l, c FROM unnest($3::int[], $4::int[], $5::jsonb[]) AS x(r, l, c)`,
    [
      accountId,
      importId,
      rows.map((r) => r.row),
      rows.map((r) => r.line),
      rows.map((r) => JSON.stringify(r.cells)),
    ],
  );
}

/** Sets the number of staged rows once the file is read. */
export async function setImportTotal(
  db: Queryable,
  accountId: string,
  importId: string,
  total: number,
): Promise<ContactImportRow> {
  const { rows } = await db.query<ContactImportRow>(
    'UPDATE contact_imports SET total = $3 WHERE account_id = $1 AND id = $2 RETURNING *',
    [accountId, importId, total],
  );
  return rows[0];
}

export async function findContactImport(
  db: Queryable,
  accountId: string,
  importId: string,
): Promise<ContactImportRow | undefined> {
  const { rows } = await db.query<ContactImportRow>(
    'SELECT * FROM contact_imports WHERE account_id = $1 AND id = $2',
    [accountId, importId],
  );
  return rows[0];
}

/** One page of the account's imports, newest first, with the total. */
export async function listContactImports(
  db: Queryable,
  accountId: string,
  f: { status?: string },
  offset: number,
  limit: number,
): Promise<{ rows: ContactImportRow[]; total: number }> {
  const params: unknown[] = [accountId, f.status ?? null];
  const cond = 'account_id = $1 AND ($2::text IS NULL OR status = $2)';
  const [items, count] = await Promise.all([
    db.query<ContactImportRow>(
      `SELECT * FROM contact_imports WHERE ${cond} ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [...params, limit, offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM contact_imports WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

/** The staged rows after the import's cursor, in row order. */
export async function nextImportRows(
  db: Queryable,
  imp: ContactImportRow,
  limit: number,
): Promise<StagedRow[]> {
  const { rows } = await db.query<StagedRow>(
    `SELECT "row", line, cells FROM contact_import_rows
     WHERE account_id = $1 AND import_id = $2 AND "row" > $3 ORDER BY "row" LIMIT $4`,
    [imp.account_id, imp.id, imp.cursor, limit],
  );
  return rows;
}

/**
 * Records a chunk: counters, the row errors kept (the first `keep` of the import), the cursor;
 * drops the chunk's staged rows; `finished` completes the import. In the chunk's transaction.
 */
export async function advanceContactImport(
  db: Queryable,
  imp: ContactImportRow,
  c: {
    cursor: number;
    processed: number;
    created: number;
    updated: number;
    failed: number;
    errors: ImportRowError[];
    keep: number;
    finished: boolean;
  },
): Promise<void> {
  await db.query(
    `UPDATE contact_imports SET
       cursor = $3, processed = processed + $4, created = created + $5, updated = updated + $6,
       failed = failed + $7,
       row_errors = CASE WHEN jsonb_array_length(row_errors) >= $9 THEN row_errors
         ELSE row_errors || coalesce((SELECT jsonb_agg(e ORDER BY n) FROM jsonb_array_elements($8::jsonb)
           WITH ORDINALITY AS x(e, n) WHERE n <= $9 - jsonb_array_length(row_errors)), '[]') END,
       status = CASE WHEN $10 THEN 'completed' ELSE 'running' END,
       started_at = coalesce(started_at, now()),
       finished_at = CASE WHEN $10 THEN now() END,
       attempts = 0, retry_at = NULL, updated_at = now()
     WHERE account_id = $1 AND id = $2`,
    [
      imp.account_id,
      imp.id,
      c.cursor,
      c.processed,
      c.created,
      c.updated,
      c.failed,
      JSON.stringify(c.errors),
      c.keep,
      c.finished,
    ],
  );
  await db.query(`DELETE FROM contact_import_rows WHERE account_id = $1 AND import_id = $2 AND "row" <= $3`, [
    imp.account_id,
    imp.id,
    c.cursor,
  ]);
}

/** Ends an import as failed with its reason; its staged rows are dropped. */
export async function failContactImport(
  db: Queryable,
  imp: ContactImportRow,
  error: { code: string; description: string },
): Promise<void> {
  await db.query(
    `UPDATE contact_imports SET status = 'failed', error = $3, finished_at = now(), updated_at = now(),
       retry_at = NULL
     WHERE account_id = $1 AND id = $2`,
    [imp.account_id, imp.id, error],
  );
  await db.query('DELETE FROM contact_import_rows WHERE account_id = $1 AND import_id = $2', [
    imp.account_id,
    imp.id,
  ]);
}
