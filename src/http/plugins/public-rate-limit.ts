import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PublicRateLimits } from '../../config.ts';
import { renderMessagePage } from '../../domain/forms/hosted-page.ts';
import { ERRORS } from '../../errors.ts';
import { addressKey } from '../../util/address-key.ts';
import { sendPage } from '../page-headers.ts';
import { type RateLimitHit, rateLimitHeaders } from '../rate-limiter.ts';
import { sendError } from './errors.ts';

/** A family of public routes sharing one per-address budget. */
export type PublicFamily = keyof PublicRateLimits;

/**
 * Which budget a public route counts against, by its route pattern (first match). The simulator's
 * doors come before the carrier callbacks they sit beside. Routes outside every family (health)
 * are not limited.
 */
const FAMILIES: [RegExp, PublicFamily][] = [
  [/^\/v1\/providers\/simulator\//, 'simulator'],
  [/^\/checkout\//, 'simulator'],
  [/^\/v1\/providers\//, 'callbacks'],
  [/^\/f\//, 'forms'],
  [/^\/v1\/meetingevents\//, 'bookings'],
  [/^\/l\//, 'links'],
  [/^\/files\//, 'files'],
];

/** The family of a route pattern, if it has one. */
export function publicFamilyOf(routePattern: string | undefined): PublicFamily | undefined {
  if (!routePattern) return undefined;
  return FAMILIES.find(([re]) => re.test(routePattern))?.[1];
}

/** Browsers get a page where they asked for one (the hosted pages), scripts the JSON envelope. */
function wantsPage(request: FastifyRequest, family: PublicFamily): boolean {
  if ((request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return false;
  return family === 'forms' || family === 'links' || request.url.startsWith('/checkout/');
}

function tooMany(request: FastifyRequest, reply: FastifyReply, family: PublicFamily, hit: RateLimitHit) {
  reply.header('Retry-After', String(hit.reset));
  request.log.warn({ family, ip: request.ip }, 'public rate limit exceeded');
  if (!wantsPage(request, family)) return sendError(reply, 'RATE-001');
  return sendPage(
    reply,
    ERRORS['RATE-001'].status,
    renderMessagePage('Too many requests', `Please try again in ${hit.reset} seconds.`),
  );
}

/**
 * Per-client-address limits on the public listener, one budget per route family (documented in
 * the README: PUBLIC_RATE_LIMIT_*). The address is the socket's, or with TRUST_PROXY the forwarded
 * client's. Over the budget → 429 with Retry-After, in the envelope or as a page.
 */
export function registerPublicRateLimit(app: FastifyInstance) {
  app.addHook('onRequest', async (request, reply) => {
    const family = publicFamilyOf(request.routeOptions.url);
    if (!family) return;
    const limit = app.ctx.config.publicRateLimits[family];
    let hit: RateLimitHit;
    try {
      // An IPv6 client counts by its /64 (a host gets a whole /64 to rotate addresses in).
      hit = await app.ctx.rateLimiter.hit(`public:${family}:${addressKey(request.ip)}`, limit);
    } catch (err) {
      // A rate-limit store outage must not take the public listener down with it.
      request.log.warn({ err }, 'rate limiter unavailable');
      return;
    }
    reply.headers(rateLimitHeaders(hit, family));
    if (!hit.allowed) return tooMany(request, reply, family, hit);
  });
}
