import http from 'node:http';
import https from 'node:https';
import { assertLiteralAllowed, BlockedDestinationError, guardedLookup } from './ssrf.ts';

/** What one outbound POST came to. `status` is absent when no response arrived. */
export interface PostResult {
  status?: number;
  /** Retry-After of a 429/503 answer, in ms. */
  retryAfterMs?: number;
  durationMs: number;
  error?: string;
}

/** Keep-alive agents whose connections go only where the SSRF guard allows. */
export interface Poster {
  post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostResult>;
  close(): void;
}

/** Parses Retry-After (delta-seconds or an HTTP date) into ms from now; undefined if absent or bad. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Builds a poster: http and https agents with keep-alive, a bounded number of sockets per
 * destination (`perDestination`) and in total, and a `lookup` that refuses private addresses
 * unless `allowPrivate`. Redirects are never followed (node:http does not follow them).
 */
export function createPoster(opts: { allowPrivate: boolean; perDestination: number; total: number }): Poster {
  const lookup = guardedLookup(opts.allowPrivate);
  const agentOpts = {
    keepAlive: true,
    maxSockets: opts.perDestination,
    maxTotalSockets: opts.total,
    maxFreeSockets: opts.perDestination,
    lookup,
  };
  const httpAgent = new http.Agent(agentOpts);
  const httpsAgent = new https.Agent(agentOpts);

  return {
    post(url, body, headers, timeoutMs) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<PostResult>((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
          if (target.protocol !== 'http:' && target.protocol !== 'https:')
            throw new Error('not an http(s) URL');
          assertLiteralAllowed(target, opts.allowPrivate);
        } catch (err) {
          resolve({ durationMs: elapsed(), error: (err as Error).message });
          return;
        }
        let settled = false;
        const finish = (r: PostResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(r);
        };
        const mod = target.protocol === 'https:' ? https : http;
        const req = mod.request(target, {
          method: 'POST',
          agent: target.protocol === 'https:' ? httpsAgent : httpAgent,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        });
        const timer = setTimeout(() => {
          req.destroy(new Error(`no response within ${timeoutMs} ms`));
        }, timeoutMs);
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            // A destination that streams an endless body must not hold the slot.
            if (size > MAX_RESPONSE_BYTES) res.destroy();
          });
          const done = () => {
            const retryAfter =
              status === 429 || status === 503
                ? parseRetryAfter(res.headers['retry-after'] as string | undefined)
                : undefined;
            finish({
              status,
              retryAfterMs: retryAfter,
              durationMs: elapsed(),
              error:
                status >= 200 && status < 300
                  ? undefined
                  : status >= 300 && status < 400
                    ? `redirect not followed (${status})`
                    : `HTTP ${status}`,
            });
          };
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        });
        req.on('error', (err) => {
          const message =
            err instanceof BlockedDestinationError ? err.message : (err as Error).message || String(err);
          finish({ durationMs: elapsed(), error: message });
        });
        req.end(body);
      });
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
