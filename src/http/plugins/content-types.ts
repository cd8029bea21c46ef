import type { FastifyError, FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';

/** Bodies up to 1 MiB for JSON and forms; CSV uploads may be 64 MiB (100,000 contacts fit). */
export const JSON_BODY_LIMIT = 1024 * 1024;
export const CSV_BODY_LIMIT = 64 * 1024 * 1024;

/** Parsers beyond JSON: form-encoded (the OAuth token endpoint) and CSV (contact uploads). */
export function registerContentTypes(app: FastifyInstance) {
  // JSON as Fastify parses it (prototype-poisoning safe), except that an empty body is no body: clients
  // send `Content-Type: application/json` on body-less PUTs such as …/close and …/deactivate.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
    (_req, body, done) => {
      const text = (body as string).trim();
      if (text === '') return done(null, undefined);
      try {
        done(null, sjson.parse(text, { protoAction: 'error', constructorAction: 'error' }));
      } catch (err) {
        const e = err as FastifyError;
        e.statusCode = 400;
        e.code = 'FST_ERR_CTP_INVALID_JSON_BODY';
        done(e, undefined);
      }
    },
  );
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
    (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  app.addContentTypeParser(
    ['text/csv', 'application/csv'],
    { parseAs: 'string', bodyLimit: CSV_BODY_LIMIT },
    (_req, body, done) => {
      done(null, body);
    },
  );
}
