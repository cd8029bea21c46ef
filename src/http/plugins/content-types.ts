import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../../errors.ts';
import { CSV_BODY_LIMIT } from '../../schemas/limits.ts';
import { SpooledUpload, spoolUpload } from '../../storage/spooled-upload.ts';

/** Bodies up to 1 MiB for JSON and forms. */
export const JSON_BODY_LIMIT = 1024 * 1024;

// PostgreSQL text and jsonb cannot hold U+0000: refuse it at the door rather than fail in the database.
const NUL_MESSAGE = 'The request body contains a NUL character (U+0000), which is not allowed.';
const nulError = () => new AppError('VAL-001', NUL_MESSAGE);

/** How deep JSON bodies may nest (objects and arrays): deeper ones overflow the stack of recursive code such as JSON.stringify. */
export const JSON_MAX_DEPTH = 32;

/** Whether JSON text nests objects and arrays deeper than max: one pass, brackets inside strings skipped. */
export function jsonTooDeep(text: string, max = JSON_MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

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

/** 415 VAL-004 for a body in `type`, naming the types the route takes. */
function unsupportedType(req: FastifyRequest, type: string): AppError {
  const accepted = acceptedTypes(req.routeOptions.schema?.body, req.routeOptions.config.scope !== undefined);
  return new AppError(
    'VAL-004',
    `Content-Type ${type || '(none)'} is not supported here: send ${accepted.join(' or ')}.`,
  );
}

/** Parsers for JSON, form-encoded (the OAuth token endpoint, carrier callbacks) and CSV (contact uploads). */
export function registerContentTypes(app: FastifyInstance) {
  // A body in a type the route does not take is 415, not a 400 from the schema (e.g. text/plain,
  // which Fastify parses to a string, sent to a JSON route).
  app.addHook('preValidation', async (req) => {
    const schema = req.routeOptions.schema?.body;
    if (!schema || req.body === undefined) return;
    const type = mediaType(req.headers['content-type']);
    if (!acceptedTypes(schema, req.routeOptions.config.scope !== undefined).includes(type))
      throw unsupportedType(req, type);
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
      // Checked before parsing, so no route ever holds a structure it cannot serialise.
      if (jsonTooDeep(text))
        return done(
          new AppError('VAL-001', `The JSON body nests deeper than ${JSON_MAX_DEPTH} levels.`),
          undefined,
        );
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
  // CSV is streamed to a temporary file (bounded memory at any size), only for routes that take uploads.
  app.addContentTypeParser(['text/csv', 'application/csv'], (req, payload, done) => {
    if (!req.routeOptions.config.csvUpload)
      return done(unsupportedType(req, mediaType(req.headers['content-type'])), undefined);
    if (Number(req.headers['content-length'] ?? 0) > CSV_BODY_LIMIT)
      return done(
        new AppError('VAL-003', `The upload is larger than ${CSV_BODY_LIMIT / 1024 / 1024} MiB.`, {
          headers: { connection: 'close' },
        }),
        undefined,
      );
    spoolUpload(payload, CSV_BODY_LIMIT).then(
      (upload) => done(null, upload),
      (err: Error) => done(err, undefined),
    );
  });
  app.addHook('preHandler', async (request) => {
    if (!mayHoldInfinity.has(request)) return;
    const at = nonFinitePath(request.body, '');
    if (at)
      throw new AppError('VAL-001', `Invalid body: body${at === '/' ? '' : at} must be a finite number.`);
  });
  // The spooled file lives as long as its request: answered, or the client gone before the answer
  // (then there is no response to wait for).
  app.addHook('onResponse', async (request) => {
    if (request.body instanceof SpooledUpload) await request.body.remove();
  });
  app.addHook('onRequestAbort', async (request) => {
    if (request.body instanceof SpooledUpload) await request.body.remove();
  });
}
