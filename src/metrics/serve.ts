/**
 * Where metrics are served: GET /metrics on a listener of its own (METRICS_PORT, every role, the
 * worker included) and/or on the API listener (METRICS_TOKEN). Off unless one of the two is set.
 * When METRICS_TOKEN is set, both answer only `Authorization: Bearer <METRICS_TOKEN>`.
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Db } from '../db/client.ts';
import { ConnectionGuard } from '../net/connection-limits.ts';
import type { Metrics } from './metrics.ts';

/** Whether an Authorization header carries the token (compared in constant time). */
export function metricsAuthorized(header: string | undefined, token: string): boolean {
  if (!token) return true;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) return false;
  const given = Buffer.from(m[1]);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

const ENVELOPE = (code: string, message: string) =>
  JSON.stringify({ success: false, error: { code, message } });

/**
 * The metrics listener's connection caps: a scraper or two need a handful; nobody may hold more
 * (a stranger who can reach the port would otherwise spend the process's file descriptors).
 */
export const METRICS_CONNECTION_LIMITS = { max: 64, perAddress: 16 };

/** The METRICS_PORT listener: GET /metrics and nothing else. */
export async function startMetricsServer(
  db: Db,
  /** The service's metrics (ctx.metrics). */
  metrics: Metrics,
  opts: {
    host: string;
    port: number;
    token: string;
    /** The HTTP listeners' timeouts (HTTP_*_TIMEOUT_MS) apply here too. */
    timeouts?: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
    log?: (msg: string) => void;
  },
): Promise<{ port: number; close: () => Promise<void> }> {
  const t = opts.timeouts ?? {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
  };
  const options: http.ServerOptions = {
    headersTimeout: t.headersTimeoutMs,
    requestTimeout: t.requestTimeoutMs,
    connectionsCheckingInterval: 1000,
  };
  const server = http.createServer(options, (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(ENVELOPE('HTTP-404', 'No such route.'));
      return;
    }
    if (!metricsAuthorized(req.headers.authorization, opts.token)) {
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer realm="metrics"',
      });
      res.end(ENVELOPE('AUTH-001', 'A bearer token is required.'));
      return;
    }
    metrics.render(db).then(
      (m) => {
        res.writeHead(200, { 'content-type': m.contentType });
        res.end(req.method === 'HEAD' ? undefined : m.body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(ENVELOPE('SYS-500', 'The metrics could not be rendered.'));
      },
    );
  });
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  new ConnectionGuard('metrics', METRICS_CONNECTION_LIMITS, () => false, opts.log ?? (() => {})).attach(
    server,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
