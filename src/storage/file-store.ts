/**
 * Where hosted files keep their bytes: a folder (DATA_DIR/files, the default) or an S3-compatible
 * bucket (S3_BUCKET and friends). One interface, two implementations; the database row of a file
 * names its key.
 */
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { localFileStore } from './local-store.ts';

/** A store of immutable objects by key (keys are `{accountId}/{fileId}`). */
export interface FileStore {
  readonly kind: 'local' | 's3';
  /** A folder to spool uploads into (for the local store, on its own file system: a rename moves them in). */
  spoolDir(): Promise<string>;
  /** Stores a spooled file under `key` and consumes the spooled file (moved or deleted). */
  put(key: string, spooled: string, meta: { contentType: string; size: number }): Promise<void>;
  /** The stored bytes as a stream, or undefined when the key holds nothing. */
  get(key: string): Promise<Readable | undefined>;
  /** Removes the object; an absent one is no error. */
  delete(key: string): Promise<void>;
}

const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Keys are made by the service, never taken from a request: anything else is a bug, not input. */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.length > 200) throw new Error(`invalid file store key: ${JSON.stringify(key)}`);
  return key;
}

const stores = new WeakMap<Config, Promise<FileStore>>();

/** The file store a configuration names (one per configuration; the S3 client loads only when used). */
export function fileStoreFor(config: Config): Promise<FileStore> {
  let store = stores.get(config);
  if (!store) {
    const { s3 } = config;
    store = s3
      ? import('./s3-store.ts').then((m) => m.s3FileStore(s3))
      : Promise.resolve(localFileStore(config.dataDir));
    stores.set(config, store);
  }
  return store;
}
