import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/client.ts';
import type { DbHealth } from '../../db/health.ts';
import { ping } from '../../db/queries/accounts.ts';
import { sendError } from '../plugins/errors.ts';

/** Liveness and readiness, served on both listeners. */
export async function healthRoutes(app: FastifyInstance, opts: { db: Db; dbHealth: DbHealth }) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ success: true, data: { status: 'ok' } }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    if (!opts.dbHealth.up) return sendError(reply, 'SYS-503');
    try {
      await ping(opts.db);
      return { success: true, data: { status: 'ready' } };
    } catch {
      return sendError(reply, 'SYS-503');
    }
  });
}
