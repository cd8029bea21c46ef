import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppContext } from '../context.ts';
import { ConnectionGuard, trustedProxy } from '../net/connection-limits.ts';
import type { lazySchemaController } from './lazy-schemas.ts';
import { setProtectiveHeaders } from './page-headers.ts';
import { registerAuth } from './plugins/auth.ts';
import { JSON_BODY_LIMIT, registerContentTypes } from './plugins/content-types.ts';
import { registerErrorHandling, sendError } from './plugins/errors.ts';
import { registerIdempotency } from './plugins/idempotency.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { registerPublicRateLimit } from './plugins/public-rate-limit.ts';
import { registerRefusedBodyDrain } from './plugins/refused-body.ts';
import { formatSchemaErrors } from './plugins/schema-errors.ts';
import { registerSimulatorRoutes } from './plugins/simulator-gate.ts';
import { registerStrictQueryIntegers } from './plugins/strict-query.ts';
import { type LogDestination, loggerOptions } from './request-log.ts';
import { healthRoutes } from './routes/health.ts';
import { apiRoutes, externalRoutes, simulatorRoutes } from './routes/index.ts';
import { metricsRoute } from './routes/metrics.ts';
import './types.ts';

/** How often Node checks the header and request timeouts of open connections. */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

const AJV = {
  customOptions: {
    removeAdditional: true,
    useDefaults: true,
    coerceTypes: 'array' as const,
    allErrors: false,
  },
};

/** Request logging: off, on (stdout), or into a destination of one's own (tests capture it). */
export type LoggerOption = boolean | { stream: LogDestination };

/** How an app is built: `lazySchemas` (the service) defers schema compilation to first use. */
export interface BuildOptions {
  logger?: LoggerOption;
  lazySchemas?: ReturnType<typeof lazySchemaController>;
}

function base(ctx: AppContext, opts: BuildOptions, listener: 'api' | 'public'): FastifyInstance {
  const logger = opts.logger ?? false;
  const app = Fastify({
    ...(opts.lazySchemas && {
      schemaController: opts.lazySchemas
        .schemaController as unknown as FastifyServerOptions['schemaController'],
    }),
    logger: logger
      ? loggerOptions(ctx.config.logLevel, typeof logger === 'object' ? logger.stream : undefined)
      : false,
    bodyLimit: JSON_BODY_LIMIT,
    ajv: AJV,
    schemaErrorFormatter: formatSchemaErrors,
    // TRUST_PROXY: the client address (rate limits, logs) from X-Forwarded-For, for these proxies only.
    trustProxy: ctx.config.trustProxy,
    // A slow client holds a connection for seconds, not minutes (docs/architecture.md, "What a
    // client can make the service hold"): the header timeout counts from the accept, so it is also
    // the idle time allowed before the first byte, and it is checked every second.
    requestTimeout: ctx.config.http.requestTimeoutMs,
    keepAliveTimeout: ctx.config.http.keepAliveTimeoutMs,
    http: {
      headersTimeout: ctx.config.http.headersTimeoutMs,
      requestTimeout: ctx.config.http.requestTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    },
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // A URL the router cannot decode (e.g. `%c0%af`) or a malformed content type fails before any
    // route or hook runs: answer it in the error envelope too.
    frameworkErrors: (err, _request, reply) => {
      if (err.code === 'FST_ERR_BAD_URL') sendError(reply, 'VAL-001', 'The URL is not valid.');
      else sendError(reply, 'VAL-001', err.message);
    },
  });
  app.decorate('ctx', ctx);
  new ConnectionGuard(
    listener,
    { max: ctx.config.http.maxConnections, perAddress: ctx.config.http.maxConnectionsPerAddress },
    trustedProxy(ctx.config.trustProxy),
    (msg) => app.log.warn(msg),
  ).attach(app.server);
  registerErrorHandling(app);
  // Request rate and latency by route pattern (never the raw URL: one series per route, not per id).
  app.addHook('onResponse', async (request, reply) => {
    if (!ctx.metrics.enabled) return;
    const route = request.routeOptions.url ?? 'unmatched';
    ctx.metrics.httpRequest(listener, request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  // While the database does not answer (the watchdog in db/health.ts), everything but the health
  // probes answers 503 at once rather than waiting on it.
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (ctx.dbHealth.up || path === '/healthz' || path === '/readyz') return;
    reply.header('Retry-After', '5');
    return sendError(reply, 'SYS-503');
  });
  // PostgreSQL text cannot hold U+0000: a query string or path that spells one is refused up front.
  app.addHook('onRequest', async (request, reply) => {
    if (/%00/.test(request.url))
      return sendError(reply, 'VAL-001', 'The URL contains a NUL character (%00).');
  });
  registerContentTypes(app);
  registerRefusedBodyDrain(app);
  registerStrictQueryIntegers(app);
  return app;
}

/** The API listener: OAuth, the /v1 resources, OpenAPI and docs. */
export async function buildApiApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = base(ctx, opts, 'api');
  registerAuth(app);
  registerIdempotency(app);
  await registerOpenApi(app, ctx.config.publicUrl);
  await app.register(healthRoutes, { db: ctx.db, dbHealth: ctx.dbHealth });
  if (ctx.config.metrics.token) await app.register(metricsRoute);
  for (const routes of apiRoutes) await app.register(routes);
  await app.ready();
  return app;
}

/**
 * The public listener: carrier callbacks, hosted pages, and (SIMULATOR_ENDPOINTS) the simulator's
 * doors. Strangers call it: every answer carries the protective headers and every route family
 * has a per-address budget.
 */
export async function buildExternalsApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = base(ctx, opts, 'public');
  app.addHook('onRequest', async (_request, reply) => {
    setProtectiveHeaders(reply);
  });
  registerPublicRateLimit(app);
  await app.register(healthRoutes, { db: ctx.db, dbHealth: ctx.dbHealth });
  for (const routes of externalRoutes) await app.register(routes);
  await registerSimulatorRoutes(app, simulatorRoutes);
  await app.ready();
  return app;
}
