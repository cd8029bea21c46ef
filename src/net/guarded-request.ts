import http from 'node:http';
import https from 'node:https';
import { assertLiteralAllowed, BlockedDestinationError, guardedLookup } from './ssrf.ts';

/**
 * One outbound HTTP exchange through the SSRF guard, as the webhook poster (post.ts) and the CRM
 * clients' requester (request.ts) make it: the URL must be http(s) and its literal address
 * allowed, names are checked at connect time (guardedLookup), redirects are never followed,
 * the answer is bounded in time and size, and nothing throws: what went wrong is `error`.
 */
export interface GuardedAnswer {
  /** Absent when no answer arrived. */
  status?: number;
  /** The answer's bytes, when asked for (`keepBody`) and within `maxBytes`. */
  body?: Buffer;
  /** Retry-After of a 429/503 answer, in ms. */
  retryAfterMs?: number;
  error?: string;
}

export interface GuardedRequestOptions {
  method: string;
  headers: Record<string, string>;
  payload?: string;
  timeoutMs: number;
  /** The most of the answer read. */
  maxBytes: number;
  /** Keep the answer's bytes (else they are read and dropped). */
  keepBody: boolean;
  /** Past `maxBytes`: an error (`true`), or the status alone (an endless body must not hold the slot). */
  refuseLarger: boolean;
}

/** Parses Retry-After (delta-seconds or an HTTP date) into ms from now; undefined if absent or bad. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Keep-alive agents whose connections go only where the SSRF guard allows, and the exchange over them. */
export interface GuardedAgents {
  request(url: string, o: GuardedRequestOptions): Promise<GuardedAnswer>;
  close(): void;
}

/** What a status means to the caller: nothing for a 2xx, else the error to report. */
function statusError(status: number): string | undefined {
  if (status >= 200 && status < 300) return undefined;
  return status >= 300 && status < 400 ? `redirect not followed (${status})` : `HTTP ${status}`;
}

export function createGuardedAgents(opts: {
  allowPrivate: boolean;
  perDestination: number;
  total?: number;
  maxFree?: number;
}): GuardedAgents {
  const lookup = guardedLookup(opts.allowPrivate);
  const agentOpts = {
    keepAlive: true,
    maxSockets: opts.perDestination,
    ...(opts.total === undefined ? {} : { maxTotalSockets: opts.total }),
    ...(opts.maxFree === undefined ? {} : { maxFreeSockets: opts.maxFree }),
    lookup,
  };
  const httpAgent = new http.Agent(agentOpts);
  const httpsAgent = new https.Agent(agentOpts);

  return {
    request(url, o) {
      return new Promise<GuardedAnswer>((resolve) => {
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
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        const finish = (r: GuardedAnswer) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(r);
        };
        const secure = target.protocol === 'https:';
        let req: http.ClientRequest;
        try {
          req = (secure ? https : http).request(target, {
            method: o.method,
            agent: secure ? httpsAgent : httpAgent,
            headers: {
              ...o.headers,
              ...(o.payload === undefined ? {} : { 'content-length': Buffer.byteLength(o.payload) }),
            },
          });
        } catch (err) {
          // A header value Node refuses (a character outside what HTTP allows).
          finish({ error: (err as Error).message });
          return;
        }
        timer = setTimeout(() => req.destroy(new Error(`no response within ${o.timeoutMs} ms`)), o.timeoutMs);
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          let tooBig = false;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > o.maxBytes) {
              tooBig = true;
              res.destroy();
              return;
            }
            if (o.keepBody) chunks.push(chunk);
          });
          const done = () => {
            if (tooBig && o.refuseLarger) return finish({ status, error: 'the answer is too large' });
            finish({
              status,
              ...(o.keepBody && !tooBig ? { body: Buffer.concat(chunks) } : {}),
              retryAfterMs:
                status === 429 || status === 503
                  ? parseRetryAfter(res.headers['retry-after'] as string | undefined)
                  : undefined,
              error: statusError(status),
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
        req.end(o.payload);
      });
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
