import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../../errors.ts';

/** Bodies up to 1 MiB for JSON and forms. */
export const JSON_BODY_LIMIT = 1024 * 1024;
/** CSV uploads up to 16 MiB (about 250,000 contacts): parsed in memory, they must fit the heap (`npm start` caps it at 256 MB). */
export const CSV_BODY_LIMIT = 16 * 1024 * 1024;

// PostgreSQL text and jsonb cannot hold U+0000: refuse it at the door rather than fail in the database.
const NUL_MESSAGE = 'The request body contains a NUL character (U+0000), which is not allowed.';
const nulError = () => new AppError('VAL-001', NUL_MESSAGE);

function rejectNul(key: string, value: unknown): unknown {
  if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) throw nulError();
  return value;
}

// Nor can jsonb hold a lone UTF-16 surrogate (`"\ud800"`): only a \u escape can spell one in UTF-8 text.
const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function rejectLoneSurrogate(key: string, value: unknown): unknown {
  if (LONE_SURROGATE.test(key) || (typeof value === 'string' && LONE_SURROGATE.test(value)))
    throw new AppError(
      'VAL-001',
      'The request body contains an unpaired UTF-16 surrogate (\\ud800–\\udfff).',
    );
  return value;
}

// `1e309` (a JSON number, or a string the validator coerces, as "Infinity" is) is Infinity, which
// passes an integer schema and fails in the database. Bodies that could spell one are walked after
// validation (the preHandler below).
const MAY_BE_INFINITE = /Infinity|[0-9][eE]\+?[0-9]{3}|[0-9]{309}/;
const mayHoldInfinity = new WeakSet<FastifyRequest>();

function nonFinitePath(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path || '/';
  if (!value || typeof value !== 'object' || depth > 64) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = nonFinitePath(v, `${path}/${k}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The media type of a request (lower case, parameters dropped), '' when none. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * The media types a route's body may come in: those of its schema's `content` map; else JSON,
 * and for routes without a bearer scope (the token endpoint, carrier callbacks) forms as well.
 */
function acceptedTypes(body: unknown, scoped: boolean): string[] {
  const content = (body as { content?: Record<string, unknown> } | undefined)?.content;
  if (content) return Object.keys(content);
  return scoped ? ['application/json'] : ['application/json', 'application/x-www-form-urlencoded'];
}

/** Parsers for JSON, form-encoded (the OAuth token endpoint, carrier callbacks) and CSV (contact uploads). */
export function registerContentTypes(app: FastifyInstance) {
  // A body in a type the route does not take is 415, not a 400 from the schema (e.g. text/plain,
  // which Fastify parses to a string, sent to a JSON route).
  app.addHook('preValidation', async (req) => {
    const schema = req.routeOptions.schema?.body;
    if (!schema || req.body === undefined) return;
    const type = mediaType(req.headers['content-type']);
    const accepted = acceptedTypes(schema, req.routeOptions.config.scope !== undefined);
    if (!accepted.includes(type))
      throw new AppError(
        'VAL-004',
        `Content-Type ${type || '(none)'} is not supported here: send ${accepted.join(' or ')}.`,
      );
  });
  // JSON as Fastify parses it (prototype-poisoning safe), except that an empty body is no body: clients
  // send `Content-Type: application/json` on body-less PUTs such as …/close and …/deactivate.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
    (req, body, done) => {
      const text = (body as string).trim();
      if (text === '') return done(null, undefined);
      try {
        const parsed = sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
        // Only a body that spells a NUL (raw or as \u0000) pays for the walk.
        if (text.includes('\\u0000') || text.includes('\0')) JSON.parse(text, rejectNul);
        if (LONE_SURROGATE_ESCAPE.test(text)) JSON.parse(text, rejectLoneSurrogate);
        if (MAY_BE_INFINITE.test(text)) mayHoldInfinity.add(req);
        done(null, parsed);
      } catch (err) {
        if (err instanceof AppError) return done(err, undefined);
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
    (req, body, done) => {
      const fields = Object.fromEntries(new URLSearchParams(body as string));
      try {
        for (const [k, v] of Object.entries(fields)) rejectNul(k, v);
      } catch (err) {
        return done(err as Error, undefined);
      }
      if (MAY_BE_INFINITE.test(body as string)) mayHoldInfinity.add(req);
      done(null, fields);
    },
  );
  app.addContentTypeParser(
    ['text/csv', 'application/csv'],
    { parseAs: 'string', bodyLimit: CSV_BODY_LIMIT },
    (_req, body, done) => {
      if ((body as string).includes('\0')) return done(nulError(), undefined);
      done(null, body);
    },
  );
  app.addHook('preHandler', async (request) => {
    if (!mayHoldInfinity.has(request)) return;
    const at = nonFinitePath(request.body, '');
    if (at)
      throw new AppError('VAL-001', `Invalid body: body${at === '/' ? '' : at} must be a finite number.`);
  });
}
