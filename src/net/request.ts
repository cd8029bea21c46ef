import http from 'node:http';
import https from 'node:https';
import { parseRetryAfter } from './post.ts';
import { assertLiteralAllowed, BlockedDestinationError, guardedLookup } from './ssrf.ts';

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
 * Builds a requester: keep-alive agents whose lookup refuses private addresses unless
 * `allowPrivate` (the same guard as webhooks: literal addresses are checked before connecting,
 * names at connect time), redirects never followed, answers bounded in size and time.
 */
export function createJsonRequester(opts: { allowPrivate: boolean; perDestination?: number }): JsonRequester {
  const lookup = guardedLookup(opts.allowPrivate);
  const agentOpts = { keepAlive: true, maxSockets: opts.perDestination ?? 4, lookup };
  const httpAgent = new http.Agent(agentOpts);
  const httpsAgent = new https.Agent(agentOpts);
  return {
    request(method, url, o = {}) {
      return new Promise<JsonResult>((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
          if (target.protocol !== 'http:' && target.protocol !== 'https:')
            throw new Error('not an http(s) URL');
          assertLiteralAllowed(target, opts.allowPrivate);
        } catch (err) {
          resolve({ error: (err as Error).message });
          return;
        }
        const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
        let settled = false;
        const finish = (r: JsonResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(r);
        };
        const mod = target.protocol === 'https:' ? https : http;
        let req: http.ClientRequest;
        try {
          req = mod.request(target, {
            method,
            agent: target.protocol === 'https:' ? httpsAgent : httpAgent,
            headers: {
              accept: 'application/json',
              ...o.headers,
              ...(payload === undefined
                ? {}
                : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
            },
          });
        } catch (err) {
          // A header value Node refuses (a character outside what HTTP allows).
          resolve({ error: (err as Error).message });
          return;
        }
        const timer = setTimeout(
          () => req.destroy(new Error(`no answer within ${o.timeoutMs ?? 15_000} ms`)),
          o.timeoutMs ?? 15_000,
        );
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          let tooBig = false;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_JSON_RESPONSE_BYTES) {
              tooBig = true;
              res.destroy();
              return;
            }
            chunks.push(chunk);
          });
          const done = () => {
            if (tooBig) return finish({ status, error: 'the answer is too large' });
            let body: unknown;
            const text = Buffer.concat(chunks).toString('utf8');
            if (text) {
              try {
                body = JSON.parse(text);
              } catch {
                body = undefined;
              }
            }
            finish({
              status,
              body,
              retryAfterMs:
                status === 429 || status === 503
                  ? parseRetryAfter(res.headers['retry-after'] as string | undefined)
                  : undefined,
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
          finish({
            error:
              err instanceof BlockedDestinationError ? err.message : (err as Error).message || String(err),
          });
        });
        req.end(payload);
      });
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
