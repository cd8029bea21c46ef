import type { FastifyInstance } from 'fastify';

/** Bodies up to 1 MiB for JSON and forms; CSV uploads may be 64 MiB (100,000 contacts fit). */
export const JSON_BODY_LIMIT = 1024 * 1024;
export const CSV_BODY_LIMIT = 64 * 1024 * 1024;

/** Parsers beyond JSON: form-encoded (the OAuth token endpoint) and CSV (contact uploads). */
export function registerContentTypes(app: FastifyInstance) {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
    (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  app.addContentTypeParser(['text/csv', 'application/csv'], { parseAs: 'string', bodyLimit: CSV_BODY_LIMIT }, (_req, body, done) => {
    done(null, body);
  });
}
