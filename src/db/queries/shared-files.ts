import type { Queryable } from '../client.ts';
import { lockDue, type QueueSpec } from './claim.ts';

/** A hosted file as stored (the bytes are in the file store under storage_key). */
export interface SharedFileRow {
  account_id: string;
  id: string;
  storage_key: string;
  content_type: string;
  extension: string;
  size_bytes: string;
  sha256: string;
  expires_at: Date;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/**
 * Serialises the uploads of one account for the rest of the transaction, so that two at once
 * cannot both pass the quota (an advisory lock: the accounts row stays free for sends).
 */
export async function lockAccountFiles(tx: Queryable, accountId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('shared_files:' || $1::text, 0))`, [
    accountId,
  ]);
}

/** Bytes of the account's files that have not expired. */
export async function liveBytes(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT coalesce(sum(size_bytes), 0)::bigint AS n FROM shared_files
     WHERE account_id = $1 AND expires_at > now()`,
    [accountId],
  );
  return Number(rows[0].n);
}

/** Records a hosted file; answers its row. */
export async function insertSharedFile(
  db: Queryable,
  accountId: string,
  f: {
    id: string;
    tokenHash: Buffer;
    storageKey: string;
    contentType: string;
    extension: string;
    size: number;
    sha256: string;
    ttlHours: number;
    by: object;
  },
): Promise<SharedFileRow> {
  const { rows } = await db.query<SharedFileRow>(
    `INSERT INTO shared_files (account_id, id, token_hash, storage_key, content_type, extension,
       size_bytes, sha256, expires_at, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(hours => $9), $10, $10)
     RETURNING account_id, id, storage_key, content_type, extension, size_bytes, sha256, expires_at,
       created_at, created_by, updated_at, updated_by`,
    [
      accountId,
      f.id,
      f.tokenHash,
      f.storageKey,
      f.contentType,
      f.extension,
      f.size,
      f.sha256,
      f.ttlHours,
      f.by,
    ],
  );
  return rows[0];
}

/** Removes one file's row (an upload whose bytes could not be stored). */
export async function deleteSharedFile(db: Queryable, accountId: string, id: string): Promise<void> {
  await db.query('DELETE FROM shared_files WHERE account_id = $1 AND id = $2', [accountId, id]);
}

/** The unexpired file a public path token names, if any. */
export async function findLiveFileByToken(
  db: Queryable,
  tokenHash: Buffer,
): Promise<SharedFileRow | undefined> {
  const { rows } = await db.query<SharedFileRow>(
    `SELECT account_id, id, storage_key, content_type, extension, size_bytes, sha256, expires_at,
       created_at, created_by, updated_at, updated_by
     FROM shared_files WHERE token_hash = $1 AND expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

/** Expired hosted files, locked by the transaction that removes them. */
const EXPIRED_FILES: QueueSpec = {
  table: 'shared_files',
  key: ['account_id', 'id'],
  due: 'q.expires_at <= now()',
  order: 'q.expires_at',
};

/**
 * Claims up to `limit` expired files for removal (FOR UPDATE SKIP LOCKED: several workers share
 * the purge); the caller removes their bytes, then their rows, in the same transaction.
 */
export async function claimExpiredFiles(
  tx: Queryable,
  limit: number,
): Promise<{ account_id: string; id: string; storage_key: string }[]> {
  return lockDue(tx, EXPIRED_FILES, limit, { columns: 'q.account_id, q.id, q.storage_key' });
}

/** Deletes the rows of claimed files. */
export async function deleteFileRows(
  tx: Queryable,
  files: { account_id: string; id: string }[],
): Promise<void> {
  if (files.length === 0) return;
  await tx.query(
    `DELETE FROM shared_files f USING unnest($1::uuid[], $2::uuid[]) AS d(account_id, id)
     WHERE f.account_id = d.account_id AND f.id = d.id`,
    [files.map((f) => f.account_id), files.map((f) => f.id)],
  );
}
