import type { FastifyReply } from 'fastify';

/**
 * What every hosted page (lead form, short-link page, simulator checkout, the 429 page) may do:
 * load nothing from elsewhere, run no script, post only to its own origin, and never be framed
 * (clickjacking: a framed form or Pay button can be clicked through a decoy).
 */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The policy of every other answer of the public listener (JSON, redirects): nothing to load or frame. */
export const NON_PAGE_CSP = "default-src 'none'; frame-ancestors 'none'";

/** The protective headers the public listener sends with every answer; pages tighten the CSP for HTML. */
export function setProtectiveHeaders(reply: FastifyReply, csp = NON_PAGE_CSP): FastifyReply {
  return reply
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer');
}

/** Sends a hosted HTML page with its protective headers; pages are personal, so never cached. */
export function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return setProtectiveHeaders(reply, PAGE_CSP)
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(page);
}
