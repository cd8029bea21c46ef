import type { FastifyInstance } from 'fastify';
import { findSharedFile } from '../../domain/files/open-shared-file.ts';
import { sendError } from '../plugins/errors.ts';

/** Hosted files may be looked at, never run: no script, no plugin, no framing, no same-origin powers. */
export const FILE_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

/**
 * Hosted files on the public listener: GET and HEAD `/files/{token}.{extension}` answer the bytes
 * with their type (nosniff), length, and a Cache-Control that ends when the link does. An unknown,
 * mistyped or expired name is the listener's plain 404, as for a path that does not exist.
 */
export async function sharedFileRoutes(app: FastifyInstance) {
  app.route<{ Params: { name: string } }>({
    method: ['GET', 'HEAD'],
    url: '/files/:name',
    // Not in the API's OpenAPI document (this is the public listener); the answer is the file.
    schema: { hide: true },
    exposeHeadRoute: false,
    handler: async (req, reply) => {
      const file = await findSharedFile(app.ctx.db, app.ctx.config, req.params.name);
      const body = file && req.method === 'GET' ? await file.open() : undefined;
      // The listener's own 404, word for word: a file that is not there is a path that does not exist.
      if (!file || (req.method === 'GET' && !body))
        return sendError(reply, 'HTTP-404', `No route ${req.method} ${req.url.split('?')[0]}.`);
      const seconds = Math.max(0, Math.floor((file.expires.getTime() - Date.now()) / 1000));
      const etag = `"${file.sha256}"`;
      reply
        .header(
          'content-type',
          file.contentType === 'text/vcard' ? 'text/vcard; charset=utf-8' : file.contentType,
        )
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', FILE_CSP)
        .header('cache-control', `public, max-age=${seconds}, immutable`)
        .header('expires', file.expires.toUTCString())
        .header('etag', etag)
        .header(
          'content-disposition',
          // PDFs and vCards are saved rather than shown by the browser of whoever follows the link.
          ['pdf', 'vcf'].includes(file.extension)
            ? `attachment; filename="file.${file.extension}"`
            : 'inline',
        );
      const match = req.headers['if-none-match'];
      if (match && (match === '*' || match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
        body?.destroy();
        return reply.code(304).send();
      }
      reply.header('content-length', String(file.size));
      if (!body) return reply.send();
      return reply.send(body);
    },
  });
}
