import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.ts';

/** The header that carries SIMULATOR_SECRET. */
export const SIMULATOR_SECRET_HEADER = 'x-simulator-secret';

/** Compares in constant time (over digests, so the lengths give nothing away either). */
export function secretMatches(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

type RoutePlugin = (app: FastifyInstance) => Promise<void>;

/**
 * Mounts the simulator's public routes when SIMULATOR_ENDPOINTS is on (else they do not exist:
 * 404). With SIMULATOR_SECRET set (required in production) every request to them must carry it in
 * X-Simulator-Secret, else 401 SIM-001 before the body is read.
 */
export async function registerSimulatorRoutes(app: FastifyInstance, routes: RoutePlugin[]) {
  const { simulatorEndpoints, simulatorSecret } = app.ctx.config;
  if (!simulatorEndpoints) return;
  await app.register(async (sim) => {
    if (simulatorSecret) {
      sim.addHook('onRequest', async (request, reply) => {
        const given = request.headers[SIMULATOR_SECRET_HEADER];
        if (typeof given !== 'string' || !secretMatches(given, simulatorSecret)) {
          return sendError(reply, 'SIM-001');
        }
      });
    }
    for (const r of routes) await sim.register(r);
  });
}
