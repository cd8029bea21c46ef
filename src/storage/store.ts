/** The interface of a file store and its keys (the implementations import this, not file-store.ts). */
import type { Readable } from 'node:stream';

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
