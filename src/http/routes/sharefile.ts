import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { refuseWhenFull, shareFile } from '../../domain/files/share-file.ts';
import { declaredType, SpooledFile, spoolFile } from '../../domain/files/spool-file.ts';
import { AppError, fail } from '../../errors.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { mediaTypeOf } from '../../schemas/file-types.ts';
import { SharedFile, SharefileBody } from '../../schemas/files.ts';
import { fileStoreFor } from '../../storage/file-store.ts';
import { ok } from '../respond.ts';
import type { App } from '../types.ts';

const closing = { headers: { connection: 'close' } };

/** A multipart parser error as the client's mistake (400 FILE-005); anything else is left as it is. */
function multipartError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  if (e.code === 'FST_REQ_FILE_TOO_LARGE') return new AppError('FILE-003', undefined, closing);
  if (e.code === 'FST_FILES_LIMIT')
    return new AppError('FILE-005', 'The upload carries more than one file: send one.', closing);
  if (e.code?.startsWith('FST_') || /multipart|unexpected end of form|malformed/i.test(e.message ?? ''))
    return new AppError(
      'FILE-005',
      `The multipart body is malformed: ${e.message ?? 'unreadable'}.`,
      closing,
    );
  return err;
}

/** Reads the one file of a multipart upload (field `media`, or `file`) into the spool, checked as it streams. */
async function spoolMultipart(req: FastifyRequest, limit: number): Promise<SpooledFile> {
  await refuseWhenFull(req.server.ctx, req.grant!.accounts[0]);
  const dir = await (await fileStoreFor(req.server.ctx.config)).spoolDir();
  let spooled: SpooledFile | undefined;
  try {
    const parts = req.parts({
      limits: { fileSize: limit + 1, files: 1, fields: 20, fieldSize: 4096, parts: 21, headerPairs: 50 },
    });
    for await (const part of parts) {
      if (part.type !== 'file') continue;
      // `media` is the documented field; `file` is what form-upload clients commonly send.
      if (part.fieldname !== 'media' && part.fieldname !== 'file') {
        part.file.resume();
        fail('FILE-005', `The file is in the field \`${part.fieldname}\`: send it as \`media\`.`, closing);
      }
      spooled = await spoolFile(part.file, {
        declared: declaredType(mediaTypeOf(part.mimetype) || 'application/octet-stream'),
        limit,
        dir,
      });
    }
  } catch (err) {
    await spooled?.remove();
    throw multipartError(err);
  }
  if (!spooled) fail('FILE-005', 'The multipart body has no file in the field `media`.');
  return spooled;
}

/**
 * POST /v1/tools/sharefile: hosts a file (image, audio, video, PDF, vCard) on the public listener
 * for MMS media or a link in a text. The body is multipart (`media`) or the raw file; either way it
 * is streamed to the file store's spool with its size bounded and its type sniffed.
 */
export async function sharefileRoutes(app: App) {
  const { maxBytes } = app.ctx.config.sharefile;
  // In this route's scope only: every body is a file (the type check names what is accepted).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => {
    const type = mediaTypeOf(req.headers['content-type']);
    let declared: ReturnType<typeof declaredType>;
    try {
      declared = declaredType(type);
      if (Number(req.headers['content-length'] ?? 0) > maxBytes)
        throw new AppError('FILE-003', undefined, closing);
    } catch (err) {
      return done(err as Error, undefined);
    }
    refuseWhenFull(app.ctx, req.grant!.accounts[0])
      .then(() => fileStoreFor(app.ctx.config))
      .then((store) => store.spoolDir())
      .then((dir) => spoolFile(payload, { declared, limit: maxBytes, dir }))
      .then(
        (file) => done(null, file),
        (err: Error) => done(err, undefined),
      );
  });
  await app.register(multipart, { limits: { fileSize: maxBytes + 1, files: 1 } });

  app.post(
    '/v1/tools/sharefile',
    {
      config: { scope: 'messages:send' },
      preValidation: async (req) => {
        if (req.isMultipart()) req.body = await spoolMultipart(req, maxBytes);
      },
      schema: {
        tags: ['tools'],
        summary: 'Host a file for MMS or a link',
        description:
          'Stores one file for the account of the token and answers a public link to it (on the public listener, ' +
          '`{EXTERNALS_URL}/files/...`, unguessable) and when it expires. Send the file as the multipart field ' +
          '`media`, or as the raw body with its Content-Type. Accepted: image/jpeg, image/png, image/gif, image/webp, ' +
          'audio/mpeg, audio/aac, audio/mp4, audio/amr, audio/ogg, audio/wav, video/mp4, video/3gpp, video/quicktime, ' +
          'application/pdf, text/vcard (and their usual aliases); application/octet-stream takes the type the bytes show. ' +
          'The bytes must match the type (415 FILE-002); other types are 415 FILE-001; more than SHAREFILE_MAX_BYTES ' +
          '(default 5 MiB) is 413 FILE-003; an empty file 400 FILE-004; no file, two files or a malformed form 400 ' +
          "FILE-005; past the account's SHAREFILE_QUOTA_BYTES of unexpired files 413 FILE-006. The link serves the " +
          'file until `expires` (SHAREFILE_TTL_HOURS, default 168), then answers 404 and the file is deleted.',
        body: SharefileBody,
        response: { 200: Envelope(SharedFile), ...errorResponses() },
      },
    },
    async (req) => {
      if (!(req.body instanceof SpooledFile))
        fail('FILE-005', 'Send the file as the body or the multipart field `media`.');
      const accountId = req.grant!.accounts[0];
      try {
        return ok(await shareFile(app.ctx, accountId, req.body, req.actor));
      } finally {
        await req.body.remove();
      }
    },
  );
}
