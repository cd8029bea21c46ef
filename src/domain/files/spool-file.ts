/**
 * An uploaded file written to the file store's spool folder as it arrives: its size bounded while
 * streaming (never buffered whole), its head sniffed against the declared type before the rest is
 * read, its SHA-256 taken on the way.
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { open, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { AppError, fail } from '../../errors.ts';
import {
  type FileType,
  fileTypeOf,
  type Kind,
  SNIFF_BYTES,
  sniff,
  typeOfKind,
  UNTYPED,
} from '../../schemas/file-types.ts';
import { SpooledUpload } from '../../storage/spooled-upload.ts';

/** A spooled upload whose type is known and checked. `sha256` (base64url) keys Idempotency-Key comparisons. */
export class SpooledFile extends SpooledUpload {
  constructor(
    file: string,
    bytes: number,
    sha256: string,
    readonly sha256Hex: string,
    readonly fileType: FileType,
  ) {
    super(file, bytes, sha256);
  }
}

/** The declared type of an upload checked against the list, before any byte is read (415 FILE-001). */
export function declaredType(mediaType: string): FileType | 'untyped' {
  if (mediaType === '')
    fail(
      'FILE-001',
      "The upload has no Content-Type: send the file's type (or application/octet-stream), or a multipart form.",
    );
  if (UNTYPED.has(mediaType)) return 'untyped';
  const type = fileTypeOf(mediaType);
  if (!type)
    fail(
      'FILE-001',
      `Content-Type ${mediaType} is not accepted for hosted files. Accepted: images (image/jpeg, image/png, image/gif, image/webp), audio (audio/mpeg, audio/aac, audio/mp4, audio/amr, audio/ogg, audio/wav), video (video/mp4, video/3gpp, video/quicktime), application/pdf and text/vcard.`,
    );
  return type;
}

const closing = { headers: { connection: 'close' } };

function tooLarge(limit: number): AppError {
  return new AppError('FILE-003', `The file is larger than ${limit} bytes (SHAREFILE_MAX_BYTES).`, closing);
}

/** The type the head shows, checked against the declared one (415 FILE-002 on a mismatch). */
function checkHead(head: Buffer, declared: FileType | 'untyped'): FileType {
  const kind: Kind | undefined = sniff(head);
  if (declared === 'untyped') {
    if (!kind)
      fail(
        'FILE-002',
        'The file is none of the accepted types (its first bytes match no image, audio, video, PDF or vCard).',
        closing,
      );
    return typeOfKind(kind, head);
  }
  if (!kind || !declared.kinds.includes(kind))
    fail(
      'FILE-002',
      `The contents of the file are not ${declared.type} (its first bytes say otherwise).`,
      closing,
    );
  return declared;
}

/**
 * A vCard is UTF-8 text from BEGIN:VCARD to END:VCARD, without control characters other than
 * tab, CR and LF: checked as it streams.
 */
class VcardCheck {
  private decoder = new TextDecoder('utf-8', { fatal: true });
  private tail = '';

  push(chunk: Buffer, end = false): void {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: !end });
    } catch {
      fail('FILE-002', 'The vCard is not UTF-8 text.', closing);
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text))
      fail('FILE-002', 'The vCard contains control characters.', closing);
    this.tail = (this.tail + text).slice(-64);
  }

  finish(): void {
    this.push(Buffer.alloc(0), true);
    if (!/END:VCARD\s*$/i.test(this.tail))
      fail('FILE-002', 'The vCard does not end with END:VCARD.', closing);
  }
}

/**
 * Writes `body` to a new file (mode 0600) in `dir`; refuses more than `limit` bytes (413
 * FILE-003), an empty body (400 FILE-004), and contents that are not the declared type (415
 * FILE-002). A refused or broken upload leaves no file behind. The body stream is not destroyed on
 * a refusal: the request socket must live to carry the answer.
 */
export async function spoolFile(
  body: Readable,
  opts: { declared: FileType | 'untyped'; limit: number; dir: string },
): Promise<SpooledFile> {
  const file = path.join(opts.dir, `incoming-${randomUUID()}`);
  const hash = createHash('sha256');
  // Opened before the first byte is read, so that a refusal always finds the file it must remove.
  const out = (await open(file, 'wx', 0o600)).createWriteStream();
  let bytes = 0;
  let head: Buffer | undefined = Buffer.alloc(0);
  let type: FileType | undefined;
  let vcard: VcardCheck | undefined;
  const write = async (chunk: Buffer) => {
    vcard?.push(chunk);
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const decide = async (whole: Buffer) => {
    type = checkHead(whole, opts.declared);
    if (type.kinds.includes('vcard')) vcard = new VcardCheck();
    head = undefined;
    await write(whole);
  };
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > opts.limit) throw tooLarge(opts.limit);
      if (head) {
        head = Buffer.concat([head, chunk]);
        if (head.length >= SNIFF_BYTES) await decide(head);
      } else await write(chunk);
    }
    if (bytes === 0) fail('FILE-004', 'The file is empty (0 bytes).');
    if (head) await decide(head);
    vcard?.finish();
    out.end();
    await finished(out);
  } catch (err) {
    out.destroy();
    await finished(out).catch(() => undefined);
    await unlink(file).catch(() => undefined);
    throw err;
  }
  const digest = hash.digest();
  return new SpooledFile(file, bytes, digest.toString('base64url'), digest.toString('hex'), type as FileType);
}
