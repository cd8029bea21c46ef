import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { classifyDbError } from '../../db/errors.ts';
import { AppError, ERRORS, type ErrorCode } from '../../errors.ts';
import { PATH_ID_NOT_FOUND } from '../../schemas/common.ts';

/** Sends the error envelope: both `message` and `description` carry the text. */
export function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  message: string = ERRORS[code].message,
  details?: unknown,
) {
  return reply.code(ERRORS[code].status).send({
    success: false,
    error: { code, message, description: message, ...(details === undefined ? {} : { details }) },
  });
}

function frameworkCode(err: FastifyError): ErrorCode | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'VAL-002';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'VAL-003';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return err.statusCode === 415 ? 'VAL-004' : 'VAL-001';
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return 'VAL-002';
  if (err.statusCode === 413) return 'VAL-003';
  if (err.statusCode === 415) return 'VAL-004';
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return 'VAL-001';
  return undefined;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** One error handler for the whole service: 4xx in the envelope, 5xx without internals. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AppError) {
      if (err.headers) reply.headers(err.headers);
      return sendError(reply, err.code, err.message, err.details);
    }
    if (err.validation) {
      // A malformed path id names no record: the resource's 404, as for an unknown id.
      const name = err.validationContext === 'params' ? err.validation[0]?.instancePath?.slice(1) : undefined;
      if (name && name in PATH_ID_NOT_FOUND)
        return sendError(reply, PATH_ID_NOT_FOUND[name as keyof typeof PATH_ID_NOT_FOUND]);
      // The message names each field (formatSchemaErrors, set as the schemaErrorFormatter).
      return sendError(reply, 'VAL-001', err.message, err.validation);
    }
    const code = frameworkCode(err);
    if (code) {
      const status = err.statusCode ?? ERRORS[code].status;
      return reply.code(status).send({
        success: false,
        error: { code, message: err.message, description: err.message },
      });
    }
    const db = classifyDbError(err);
    if (db === 'unavailable') {
      request.log.warn({ err }, 'database unavailable');
      reply.header('Retry-After', '5');
      return sendError(reply, 'SYS-503');
    }
    if (db === 'bad-input') {
      // A backstop: values should be refused by their schema before any query; log what got through.
      request.log.warn({ err }, 'a request value was refused by the database');
      return sendError(reply, 'VAL-001', 'A value in the request is not valid.');
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, 'SYS-500');
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A known path with another method: 405 with the methods it has (RFC 9110 §15.5.6).
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        reply,
        'HTTP-405',
        `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}.`,
      );
    }
    return sendError(reply, 'HTTP-404', `No route ${request.method} ${path}.`);
  });
}
