// HTTP_*: how many connections the HTTP listeners hold and how long a slow client may hold one,
// sized by default from the process's file-descriptor limit.
import { readFileSync } from 'node:fs';
import { ConfigError, int } from './read.ts';

/** Connection caps and timeouts of the HTTP listeners (docs/architecture.md, "What a client can make the service hold"). */
export interface HttpLimitsConfig {
  /** The process's soft limit of open files (RLIMIT_NOFILE) as read at start; what the defaults are sized from. */
  fdLimit: number;
  /** HTTP_MAX_CONNECTIONS: connections each HTTP listener (API, public) holds at most. */
  maxConnections: number;
  /** HTTP_MAX_CONNECTIONS_PER_ADDRESS: connections one client address (an IPv6 /64) holds at most on a listener. */
  maxConnectionsPerAddress: number;
  /** HTTP_HEADERS_TIMEOUT_MS: from the accept to the end of a request's headers (idle before the first byte included). */
  headersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT_MS: from the start of a request to the end of its body. */
  requestTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: how long an idle keep-alive connection is kept after an answer. */
  keepAliveTimeoutMs: number;
}

/** Used when the limit cannot be read (not Linux): the usual default soft limit. */
const FALLBACK_FD_LIMIT = 1024;

/** The soft limit of open files, from /proc/self/limits (Node has no API for getrlimit). */
export function readFdLimit(file = '/proc/self/limits'): number {
  try {
    const line = readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return 1_048_576;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : FALLBACK_FD_LIMIT;
  } catch {
    return FALLBACK_FD_LIMIT;
  }
}

/**
 * The default cap of each of the two HTTP listeners: a quarter of the file descriptors, so that
 * both together hold at most half and the rest stays for PostgreSQL connections, the SMPP server,
 * outbound webhooks and provider links, and files; at least 64, at most 10,000.
 */
export function defaultMaxConnections(fdLimit: number): number {
  return Math.max(64, Math.min(10_000, Math.floor(fdLimit / 4)));
}

/** The default per-address cap: a tenth of the listener's cap (so no one address can fill it), at most 256. */
export function defaultMaxConnectionsPerAddress(maxConnections: number): number {
  return Math.max(1, Math.min(256, Math.floor(maxConnections / 10)));
}

export function httpLimits(env: NodeJS.ProcessEnv, fdLimit = readFdLimit()): HttpLimitsConfig {
  const maxConnections = int(env, 'HTTP_MAX_CONNECTIONS', defaultMaxConnections(fdLimit), 1, 1_000_000);
  const headersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1000, 600_000);
  const requestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs)
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be above HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  return {
    fdLimit,
    maxConnections,
    maxConnectionsPerAddress: int(
      env,
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
      defaultMaxConnectionsPerAddress(maxConnections),
      1,
      1_000_000,
    ),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1000, 600_000),
  };
}
