/**
 * A request body written to a temporary file as it arrives (bounded memory whatever its size), with
 * its SHA-256 for Idempotency-Key comparisons. The upload is then parsed from the file, so a database
 * transaction is never held open by a slow client.
 *
 * The files (`sparrow-upload-<pid>-<uuid>.csv` in the OS temporary folder) carry contact data, so
 * none outlives its request: a refused body (too large, a NUL, not UTF-8, the client gone) is
 * removed at once, an accepted one when its request ends (plugins/content-types.ts), and what a
 * killed process left behind by the next start (sweepSpool).
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readdir, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { AppError } from '../errors.ts';
import { Utf8Lines } from './utf8-lines.ts';

/** The name of every spool file: the owner's pid, then a UUID. */
const SPOOL_FILE =
  /^sparrow-upload-(?:(\d+)-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.csv$/;
/**
 * A spool file untouched this long is no running upload's (a body is written as it arrives and
 * read within its request: seconds), whoever owns it: removed by the sweep even when its pid is
 * alive (pids are reused: after a restart in a container the service often has the same one).
 */
export const SPOOL_MAX_AGE_MS = 60 * 60 * 1000;

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
 * more than `limit` bytes with 413 VAL-003, a NUL byte with 400 VAL-001 (PostgreSQL text cannot
 * hold U+0000) and bytes that are not UTF-8 with 400 CONT-004 naming the line (a UTF-8 BOM is
 * UTF-8). A refused or broken body leaves no file behind.
 */
export async function spoolUpload(body: Readable, limit: number): Promise<SpooledUpload> {
  const file = path.join(tmpdir(), `sparrow-upload-${process.pid}-${randomUUID()}.csv`);
  const hash = createHash('sha256');
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  const utf8 = new Utf8Lines();
  let bytes = 0;
  try {
    // The file exists once open: removing it before then (a refusal in the first chunk) would
    // leave the file the pending open creates.
    await once(out, 'open');
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
      notUtf8(utf8.push(chunk));
      hash.update(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
    notUtf8(utf8.end());
    out.end();
    await finished(out);
  } catch (err) {
    // Closed once its pending write is done (destroying it with a write under way throws that
    // write's ERR_STREAM_DESTROYED out of the process), then removed.
    out.end();
    await finished(out).catch(() => undefined);
    await unlink(file).catch(() => undefined);
    throw err;
  }
  return new SpooledUpload(file, bytes, hash.digest('base64url'));
}

/** Throws 400 CONT-004 when the check found bytes that are not UTF-8 (`line`: where). */
function notUtf8(line: number | undefined): void {
  if (line === undefined) return;
  throw new AppError(
    'CONT-004',
    `The CSV file is not valid UTF-8: line ${line} holds bytes that are not UTF-8 text. ` +
      'Save or export the file as UTF-8 (with or without a byte order mark).',
    { headers: { connection: 'close' } },
  );
}

/** Whether a process with this pid runs (one of another user counts as running). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/**
 * Removes the spool files no running upload can be writing or reading: those of a process that is
 * no longer running, this process's from before it started (a restart under the same pid), and any
 * untouched for SPOOL_MAX_AGE_MS (a file of the old, pid-less name included). Run at start-up, so
 * what a killed process (SIGKILL, OOM, power loss) left behind does not stay on disk. Several
 * processes may share the folder: a live one's recent files are left alone. Answers the removed count.
 */
export async function sweepSpool(dir = tmpdir(), now = Date.now()): Promise<number> {
  const started = now - process.uptime() * 1000;
  let removed = 0;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const m = SPOOL_FILE.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) continue;
    const pid = m[1] === undefined ? undefined : Number(m[1]);
    const stale =
      now - info.mtimeMs > SPOOL_MAX_AGE_MS ||
      (pid === process.pid ? info.mtimeMs < started : pid !== undefined && !alive(pid));
    if (
      stale &&
      (await unlink(file).then(
        () => true,
        () => false,
      ))
    )
      removed++;
  }
  return removed;
}

/** sweepSpool at start-up, in the background (it never delays or fails the start): logs what it removed. */
export function sweepSpoolAtStart(log: (line: string) => void): void {
  sweepSpool().then(
    (n) => {
      if (n > 0) log(`removed ${n} upload spool file(s) (sparrow-upload-*) left by a stopped process`);
    },
    () => {},
  );
}
