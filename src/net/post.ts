import { createGuardedAgents } from './guarded-request.ts';

/** What one outbound POST came to. `status` is absent when no response arrived. */
export interface PostResult {
  status?: number;
  /** Retry-After of a 429/503 answer, in ms. */
  retryAfterMs?: number;
  durationMs: number;
  error?: string;
}

/** Keep-alive agents whose connections go only where the SSRF guard allows (the webhook deliveries). */
export interface Poster {
  post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostResult>;
  close(): void;
}

/** The most of an answer read: a destination that streams an endless body must not hold the slot. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Builds a poster of JSON bodies (guarded-request.ts): keep-alive agents with a bounded number of
 * sockets per destination (`perDestination`) and in total, a lookup that refuses private addresses
 * unless `allowPrivate`, redirects never followed. The answer's body is read and dropped.
 */
export function createPoster(opts: { allowPrivate: boolean; perDestination: number; total: number }): Poster {
  const agents = createGuardedAgents({
    allowPrivate: opts.allowPrivate,
    perDestination: opts.perDestination,
    total: opts.total,
    maxFree: opts.perDestination,
  });
  return {
    async post(url, body, headers, timeoutMs) {
      const started = performance.now();
      const r = await agents.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: body,
        timeoutMs,
        maxBytes: MAX_RESPONSE_BYTES,
        keepBody: false,
        refuseLarger: false,
      });
      return {
        status: r.status,
        retryAfterMs: r.retryAfterMs,
        durationMs: Math.round(performance.now() - started),
        error: r.error,
      };
    },
    close: () => agents.close(),
  };
}
