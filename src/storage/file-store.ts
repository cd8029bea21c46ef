/**
 * Where hosted files keep their bytes: a folder (DATA_DIR/files, the default) or an S3-compatible
 * bucket (S3_BUCKET and friends). One interface, two implementations; the database row of a file
 * names its key.
 */
import type { Config } from '../config.ts';
import { localFileStore } from './local-store.ts';
import type { FileStore } from './store.ts';

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
