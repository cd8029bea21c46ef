import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';

/** The outcome of counting one request against its key's window. */
export interface RateLimitHit {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  allowed: boolean;
}

/** Counts requests per key in fixed one-minute windows. */
export interface RateLimiter {
  /** Counts one request against `key`, allowed up to `limit` a minute (default: the limiter's own). */
  hit(key: string, limit?: number): Promise<RateLimitHit>;
  close(): Promise<void>;
}

/** Requests are counted in fixed windows of this length. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

function outcome(limit: number, count: number, windowStart: number): RateLimitHit {
  const reset = Math.max(1, Math.ceil((windowStart + RATE_LIMIT_WINDOW_MS - Date.now()) / 1000));
  return { limit, remaining: Math.max(0, limit - count), reset, allowed: count <= limit };
}

/**
 * Keys the in-process limiter counts at most (about 15 MB). Past it (a client rotating addresses
 * faster than windows end: an IPv6 host has a /64 to rotate in), new keys share one window per
 * limit, so the rotating client is limited as one, and the keys already counted keep their own.
 */
export const MEMORY_RATE_LIMIT_MAX_KEYS = 100_000;

/** In-process counters: right for one process. */
export function memoryRateLimiter(defaultLimit: number, maxKeys = MEMORY_RATE_LIMIT_MAX_KEYS): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = Date.now();
  return {
    async hit(key, limit = defaultLimit) {
      const now = Date.now();
      const start = now - (now % RATE_LIMIT_WINDOW_MS);
      if (now - lastSweep > RATE_LIMIT_WINDOW_MS || (windows.size >= maxKeys && lastSweep < start)) {
        for (const [k, w] of windows) if (w.start < start) windows.delete(k);
        lastSweep = now;
      }
      if (windows.size >= maxKeys && !windows.has(key)) key = `overflow:${limit}`;
      let w = windows.get(key);
      if (!w || w.start !== start) {
        w = { start, count: 0 };
        windows.set(key, w);
      }
      w.count++;
      return outcome(limit, w.count, start);
    },
    async close() {},
  };
}

/**
 * Counters in Redis, shared by every process that points at the same server with the same key
 * prefix (REDIS_KEY_PREFIX: one per deployment).
 */
export function redisRateLimiter(defaultLimit: number, url: string, prefix: string): RateLimiter {
  // Loaded only when REDIS_URL is set: ioredis costs a start-up that does not use it ~0.1 s.
  const { Redis } = createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient };
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  redis.on('error', () => {});
  return {
    async hit(key, limit = defaultLimit) {
      const now = Date.now();
      const start = now - (now % RATE_LIMIT_WINDOW_MS);
      const rkey = `${prefix}:rl:${key}:${start}`;
      const [[, count]] = (await redis
        .multi()
        .incr(rkey)
        .pexpire(rkey, RATE_LIMIT_WINDOW_MS + 1000)
        .exec()) as [[Error | null, number]];
      return outcome(limit, count, start);
    },
    async close() {
      redis.disconnect();
    },
  };
}

export function createRateLimiter(limit: number, redisUrl: string | undefined, prefix: string): RateLimiter {
  return redisUrl ? redisRateLimiter(limit, redisUrl, prefix) : memoryRateLimiter(limit);
}

/** The IETF draft-ietf-httpapi-ratelimit-headers (rev. 11) fields for a hit. */
export function rateLimitHeaders(h: RateLimitHit, policy = 'default'): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${h.limit};w=${RATE_LIMIT_WINDOW_MS / 1000}`,
    RateLimit: `"${policy}";r=${h.remaining};t=${h.reset}`,
  };
}
