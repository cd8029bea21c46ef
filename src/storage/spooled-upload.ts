/**
 * A request body written to a temporary file as it arrives (bounded memory whatever its size), with
 * its SHA-256 for Idempotency-Key comparisons. The upload is then parsed from the file, so a database
 * transaction is never held open by a slow client.
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { AppError } from '../errors.ts';

/** A request body spooled to a file; `remove()` deletes it (the app does after the response). */
export class SpooledUpload {
  constructor(
    readonly file: string,
    readonly bytes: number,
    readonly sha256: string,
  ) {}

  async remove(): Promise<void> {
    await unlink(this.file).catch(() => undefined);
  }
}

/**
 * Writes a body stream to a file readable by this user only (uploads carry personal data), refusing
 * more than `limit` bytes with 413 VAL-003 and a NUL byte with 400 VAL-001 (PostgreSQL text cannot
 * hold U+0000). A refused or broken body leaves no file behind.
 */
export async function spoolUpload(body: Readable, limit: number): Promise<SpooledUpload> {
  const file = path.join(tmpdir(), `sparrow-upload-${randomUUID()}.csv`);
  const hash = createHash('sha256');
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  let bytes = 0;
  try {
    // Not destroyed on a refusal: the request socket must live to carry the 4xx answer.
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > limit)
        throw new AppError('VAL-003', `The upload is larger than ${limit / 1024 / 1024} MiB.`, {
          headers: { connection: 'close' },
        });
      if (chunk.includes(0))
        throw new AppError(
          'VAL-001',
          'The request body contains a NUL character (U+0000), which is not allowed.',
          {
            headers: { connection: 'close' },
          },
        );
      hash.update(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await finished(out);
  } catch (err) {
    out.destroy();
    await unlink(file).catch(() => undefined);
    throw err;
  }
  return new SpooledUpload(file, bytes, hash.digest('base64url'));
}
