import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { AppContext } from '../context.ts';
import type { Actor } from '../domain/actor.ts';
import type { Grant } from '../domain/auth/tokens.ts';
import type { Scope } from '../schemas/scopes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a bearer token needs for this route; routes without one are public. */
    scope?: Scope;
    /** The route takes CSV uploads: a text/csv body arrives as a SpooledUpload (other routes answer 415). */
    csvUpload?: boolean;
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

/** The app as route plugins see it: request and reply types come from the route's TypeBox schemas. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
