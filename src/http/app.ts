import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppContext } from '../context.ts';
import type { lazySchemaController } from './lazy-schemas.ts';
import { registerAuth } from './plugins/auth.ts';
import { JSON_BODY_LIMIT, registerContentTypes } from './plugins/content-types.ts';
import { registerErrorHandling, sendError } from './plugins/errors.ts';
import { registerIdempotency } from './plugins/idempotency.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { healthRoutes } from './routes/health.ts';
import { apiRoutes, externalRoutes } from './routes/index.ts';
import './types.ts';

const AJV = {
  customOptions: {
    removeAdditional: true,
    useDefaults: true,
    coerceTypes: 'array' as const,
    allErrors: false,
  },
};

/** How an app is built: `lazySchemas` (the service) defers schema compilation to first use. */
export interface BuildOptions {
  logger?: boolean;
  lazySchemas?: ReturnType<typeof lazySchemaController>;
}

function base(ctx: AppContext, opts: BuildOptions): FastifyInstance {
  const logger = opts.logger ?? false;
  const app = Fastify({
    ...(opts.lazySchemas && {
      schemaController: opts.lazySchemas
        .schemaController as unknown as FastifyServerOptions['schemaController'],
    }),
    logger: logger ? { level: ctx.config.logLevel } : false,
    bodyLimit: JSON_BODY_LIMIT,
    ajv: AJV,
    trustProxy: false,
    requestTimeout: 60_000,
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
  registerErrorHandling(app);
  // PostgreSQL text cannot hold U+0000: a query string or path that spells one is refused up front.
  app.addHook('onRequest', async (request, reply) => {
    if (/%00/.test(request.url))
      return sendError(reply, 'VAL-001', 'The URL contains a NUL character (%00).');
  });
  registerContentTypes(app);
  return app;
}

/** The API listener: OAuth, the /v1 resources, OpenAPI and docs. */
export async function buildApiApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = base(ctx, opts);
  registerAuth(app);
  registerIdempotency(app);
  await registerOpenApi(app, ctx.config.publicUrl);
  await app.register(healthRoutes, { db: ctx.db });
  for (const routes of apiRoutes) await app.register(routes);
  await app.ready();
  return app;
}

/** The public listener: carrier callbacks, the simulator's inbound door, hosted pages. */
export async function buildExternalsApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = base(ctx, opts);
  await app.register(healthRoutes, { db: ctx.db });
  for (const routes of externalRoutes) await app.register(routes);
  await app.ready();
  return app;
}
