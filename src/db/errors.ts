/** What a database error says about the request that caused it. */
export type DbFailure = 'unavailable' | 'bad-input';

const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
// Messages of node-postgres itself (no SQLSTATE): a connection that could not open or was cut.
const CLIENT =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|not queryable|Client was closed/;

/**
 * Classifies an error thrown by a query. `unavailable`: the database cannot be reached or did not
 * answer in time (connection failures, SQLSTATE class 08, shutdown 57P01–57P03, too many
 * connections 53300, statement timeout 57014) — a 503. `bad-input`: a value the database refused
 * (class 22, data exception: invalid uuid or number text, out-of-range number, NUL in text) or a
 * value too deeply nested (54001) — a 400, since every statement takes request values as
 * parameters. Anything else is a fault of the service (undefined here).
 */
export function classifyDbError(err: unknown): DbFailure | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK.has(code)) return 'unavailable';
    if (/^[0-9A-Z]{5}$/.test(code)) {
      if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300', '57014'].includes(code))
        return 'unavailable';
      if (code.startsWith('22') || code === '54001') return 'bad-input';
      return undefined;
    }
  }
  if (typeof message === 'string' && CLIENT.test(message)) return 'unavailable';
  return undefined;
}
