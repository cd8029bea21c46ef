import type { Readable } from 'node:stream';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { findLiveFileByToken } from '../../db/queries/shared-files.ts';
import { fileStoreFor } from '../../storage/file-store.ts';
import { tokenHash } from './share-file.ts';

/** A hosted file as the public listener serves it. */
export interface OpenedFile {
  contentType: string;
  extension: string;
  size: number;
  sha256: string;
  expires: Date;
  /** Opens the bytes (undefined when the store no longer holds them). */
  open: () => Promise<Readable | undefined>;
}

const NAME = /^([A-Za-z0-9_-]{43})\.([a-z0-9]{1,8})$/;

/**
 * The unexpired file a public name `{token}.{extension}` stands for, or undefined: an unknown
 * token, another extension, and an expired file all look the same.
 */
export async function findSharedFile(db: Db, config: Config, name: string): Promise<OpenedFile | undefined> {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const row = await findLiveFileByToken(db, tokenHash(m[1]));
  if (!row || row.extension !== m[2]) return undefined;
  return {
    contentType: row.content_type,
    extension: row.extension,
    size: Number(row.size_bytes),
    sha256: row.sha256,
    expires: row.expires_at,
    open: async () => (await fileStoreFor(config)).get(row.storage_key),
  };
}
