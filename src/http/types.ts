import type { AppContext } from '../context.ts';
import type { Actor } from '../domain/actor.ts';
import type { Scope } from '../domain/auth/scopes.ts';
import type { Grant } from '../domain/auth/tokens.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a bearer token needs for this route; routes without one are public. */
    scope?: Scope;
  }
  interface FastifyRequest {
    grant?: Grant;
    actor: Actor;
    idempotency?: { clientId: string; key: string };
  }
  interface FastifyInstance {
    ctx: AppContext;
  }
}
