import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { sendError } from './errors.ts';

const DECIMAL = /^-?[0-9]+$/;

function integerParams(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (!props) return [];
  return Object.entries(props)
    .filter(([, p]) => p.type === 'integer')
    .map(([name]) => name);
}

/**
 * Integer query parameters (offset, limit, …) take plain decimal digits. The validator coerces
 * `1e3`, ` 12` or `0x10` into numbers; a client sending them has a bug that deserves a 400 naming
 * the parameter, not a guess. Range checks stay with the schema (`PageQuery` in schemas/common.ts).
 */
export function registerStrictQueryIntegers(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const names = integerParams(route.schema?.querystring);
    if (names.length === 0) return;
    const check = async (request: FastifyRequest, reply: FastifyReply) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      for (const name of names) {
        const value = query[name];
        if (value === undefined) continue;
        if (typeof value !== 'string' || !DECIMAL.test(value))
          return sendError(
            reply,
            'VAL-001',
            `Invalid querystring: ${name} must be an integer written in decimal digits.`,
            [{ instancePath: `/${name}`, message: 'must be an integer' }],
          );
      }
    };
    const existing = route.preValidation;
    route.preValidation = [
      check as preValidationHookHandler,
      ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
    ];
  });
}
