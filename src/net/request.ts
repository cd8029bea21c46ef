import { createGuardedAgents } from './guarded-request.ts';

/** What one outbound request came to; `status` is absent when no answer arrived (`error` says why). */
export interface JsonResult {
  status?: number;
  /** The parsed JSON body (undefined when empty or not JSON). */
  body?: unknown;
  /** Retry-After of a 429/503 answer, in ms. */
  retryAfterMs?: number;
  error?: string;
}

/** Requests with a JSON answer through the SSRF guard (the CRM clients' transport). */
export interface JsonRequester {
  request(
    method: string,
    url: string,
    opts?: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number },
  ): Promise<JsonResult>;
  close(): void;
}

/** The largest answer read (a CRM page of 100 records is well under it). */
export const MAX_JSON_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * Builds a requester (guarded-request.ts): keep-alive agents whose lookup refuses private addresses
 * unless `allowPrivate` (the same guard as webhooks: literal addresses are checked before
 * connecting, names at connect time), redirects never followed, answers bounded in size and time.
 */
export function createJsonRequester(opts: { allowPrivate: boolean; perDestination?: number }): JsonRequester {
  const agents = createGuardedAgents({
    allowPrivate: opts.allowPrivate,
    perDestination: opts.perDestination ?? 4,
  });
  return {
    async request(method, url, o = {}) {
      const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
      const r = await agents.request(url, {
        method,
        headers: {
          accept: 'application/json',
          ...o.headers,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        payload,
        timeoutMs: o.timeoutMs ?? 15_000,
        maxBytes: MAX_JSON_RESPONSE_BYTES,
        keepBody: true,
        refuseLarger: true,
      });
      let body: unknown;
      const text = r.body?.toString('utf8');
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
      }
      return { status: r.status, body, retryAfterMs: r.retryAfterMs, error: r.error };
    },
    close: () => agents.close(),
  };
}
