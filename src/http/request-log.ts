/**
 * Path segments that are secrets: a simulator checkout session id is all it takes to pay (or see)
 * the checkout, so it never reaches a log.
 */
const SECRET_SEGMENTS: [RegExp, string][] = [[/^\/checkout\/[^/]+/, '/checkout/:sessionId']];

/**
 * The request's path as logs may carry it: without the query string (it carries phone numbers,
 * names and e-mail addresses: `?pageUrl=`, `?successUrl=`, filters) and with secret segments
 * replaced by their parameter name.
 */
export function loggablePath(url: string): string {
  let path = url.split(/[?#]/, 1)[0] ?? '';
  for (const [re, name] of SECRET_SEGMENTS) path = path.replace(re, name);
  return path;
}

/** What a request log line says about the request: never its query string, headers or body. */
function serializeRequest(request: {
  method: string;
  url: string;
  ip: string;
  routeOptions?: { url?: string };
}) {
  return {
    method: request.method,
    url: loggablePath(request.url),
    route: request.routeOptions?.url,
    remoteAddress: request.ip,
  };
}

function serializeReply(reply: { statusCode: number }) {
  return { statusCode: reply.statusCode };
}

/**
 * An error as logs carry it: type, message, code and stack. Not every enumerable field: a
 * PostgreSQL error's `detail` quotes the row's values (phone numbers, names).
 */
function serializeError(err: Error & { code?: unknown; statusCode?: unknown }) {
  return {
    type: err?.name ?? typeof err,
    message: String(err?.message ?? err),
    stack: err?.stack ?? '',
    code: err?.code,
    statusCode: err?.statusCode,
  };
}

/** Where log lines go (pino's destination stream): stdout by default. */
export interface LogDestination {
  write(line: string): void;
}

/** The listeners' pino options: the level, the serializers above, and a destination (tests capture it). */
export function loggerOptions(level: string, stream?: LogDestination) {
  return {
    level,
    serializers: { req: serializeRequest, res: serializeReply, err: serializeError },
    ...(stream ? { stream } : {}),
  };
}
