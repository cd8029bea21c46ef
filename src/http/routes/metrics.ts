import { metricsAuthorized } from '../../metrics/serve.ts';
import { sendError } from '../plugins/errors.ts';
import type { App } from '../types.ts';

/**
 * GET /metrics on the API listener, registered only when METRICS_TOKEN is set: Prometheus text for
 * `Authorization: Bearer <METRICS_TOKEN>` (not an OAuth token), 401 otherwise.
 */
export async function metricsRoute(app: App) {
  const token = app.ctx.config.metrics.token;
  // Recording starts now (the service has already started it with its role; first one wins).
  await app.ctx.metrics.enable('api');
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!metricsAuthorized(request.headers.authorization, token)) {
      reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      return sendError(reply, 'AUTH-001');
    }
    const m = await app.ctx.metrics.render(app.ctx.db);
    reply.header('content-type', m.contentType);
    return reply.send(m.body);
  });
}
