import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { withTx } from '../../db/client.ts';
import {
  deleteSharedFile,
  insertSharedFile,
  liveBytes,
  lockAccountFiles,
} from '../../db/queries/shared-files.ts';
import { fail } from '../../errors.ts';
import { fileStoreFor } from '../../storage/file-store.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import type { SpooledFile } from './spool-file.ts';

/** What an upload answers: the public link and when it stops working. */
export interface SharedFile {
  link: string;
  expires: string;
  contentType: string;
  size: number;
}

/** The path of hosted files on the public listener: `/files/{token}.{extension}`. */
export const FILES_PATH = '/files/';

/** The database keeps the token's hash only: a copy of the table opens no file. */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * Refuses an upload before reading it when the account's unexpired files already fill its quota
 * (413 FILE-006): a full account cannot make the service spool file after file only to refuse it.
 */
export async function refuseWhenFull(ctx: AppContext, accountId: string): Promise<void> {
  const used = await liveBytes(ctx.db, accountId);
  if (used >= ctx.config.sharefile.quotaBytes)
    fail(
      'FILE-006',
      `The account holds ${used} bytes of hosted files, its quota (SHAREFILE_QUOTA_BYTES) is ${ctx.config.sharefile.quotaBytes}.`,
      { headers: { connection: 'close' } },
    );
}

/**
 * Stores a checked upload for the account and answers its public link: 256 random bits in the
 * path, served until SHAREFILE_TTL_HOURS from now. The account's unexpired files may hold at most
 * SHAREFILE_QUOTA_BYTES (413 FILE-006); uploads of one account are counted one at a time.
 */
export async function shareFile(
  ctx: AppContext,
  accountId: string,
  file: SpooledFile,
  by: Actor,
): Promise<SharedFile> {
  const { sharefile, externalsUrl } = ctx.config;
  const store = await fileStoreFor(ctx.config);
  const id = newId();
  const token = randomBytes(32).toString('base64url');
  const storageKey = `${accountId}/${id}`;
  const row = await withTx(ctx.db, async (tx) => {
    await lockAccountFiles(tx, accountId);
    const used = await liveBytes(tx, accountId);
    if (used + file.bytes > sharefile.quotaBytes)
      fail(
        'FILE-006',
        `The account holds ${used} bytes of hosted files; this file (${file.bytes} bytes) would pass the quota of ${sharefile.quotaBytes} bytes (SHAREFILE_QUOTA_BYTES).`,
      );
    return insertSharedFile(tx, accountId, {
      id,
      tokenHash: tokenHash(token),
      storageKey,
      contentType: file.fileType.type,
      extension: file.fileType.extension,
      size: file.bytes,
      sha256: file.sha256Hex,
      ttlHours: sharefile.ttlHours,
      by,
    });
  });
  // The row is committed before the bytes are stored (no lock is held over the store's I/O); the
  // link is not known to anyone until this answers, and a failed store removes the row again.
  try {
    await store.put(storageKey, file.file, { contentType: file.fileType.type, size: file.bytes });
  } catch (err) {
    await deleteSharedFile(ctx.db, accountId, id).catch(() => undefined);
    throw err;
  }
  return {
    link: `${externalsUrl}${FILES_PATH}${token}.${file.fileType.extension}`,
    expires: row.expires_at.toISOString(),
    contentType: file.fileType.type,
    size: file.bytes,
  };
}
