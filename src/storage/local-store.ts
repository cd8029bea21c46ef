import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { checkKey, type FileStore } from './store.ts';

const code = (err: unknown) => (err as { code?: string }).code;

/**
 * Files under `{dataDir}/files/{accountId}/{fileId}`, readable by this user only (folders 0700,
 * files 0600). Uploads are spooled in `files/.incoming` and renamed into place, so a reader never
 * sees half a file.
 */
export function localFileStore(dataDir: string): FileStore {
  const root = path.join(dataDir, 'files');
  const incoming = path.join(root, '.incoming');
  let ready: Promise<unknown> | undefined;
  const at = (key: string) => path.join(root, ...checkKey(key).split('/'));
  return {
    kind: 'local',
    async spoolDir() {
      ready ??= mkdir(incoming, { recursive: true, mode: 0o700 });
      await ready.catch((err) => {
        ready = undefined;
        throw err;
      });
      return incoming;
    },
    async put(key, spooled) {
      const target = at(key);
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await rename(spooled, target);
    },
    async get(key) {
      try {
        const handle = await open(at(key), 'r');
        return handle.createReadStream() as Readable;
      } catch (err) {
        if (code(err) === 'ENOENT') return undefined;
        throw err;
      }
    },
    async delete(key) {
      await unlink(at(key)).catch((err) => {
        if (code(err) !== 'ENOENT') throw err;
      });
    },
  };
}
