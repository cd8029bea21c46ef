/** How deliveries are retried; injectable so tests can use short delays. */
export interface RetryPolicy {
  /** Delay before attempt i+1, in ms; entry 0 is the first attempt (immediately). */
  schedule: number[];
  /** Random spread applied to each delay, as a fraction (0.2 → ±20%). */
  jitter: number;
  /** A subscription failing for this long without one success is disabled. */
  disableAfterMs: number;
  /** Retry-After beyond this is clamped. */
  maxRetryAfterMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Svix's schedule as in Standard Webhooks practice: now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  schedule: [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  jitter: 0.1,
  disableAfterMs: 5 * 24 * HOUR,
  maxRetryAfterMs: 24 * HOUR,
};

/**
 * When to try again after failed attempt number `attempts` (1-based), or undefined when the
 * schedule is exhausted. A Retry-After from the destination is honoured: never sooner than it.
 */
export function nextDelay(
  policy: RetryPolicy,
  attempts: number,
  retryAfterMs?: number,
  random = Math.random,
): number | undefined {
  if (attempts >= policy.schedule.length) return undefined;
  const base = policy.schedule[attempts];
  const jittered = base * (1 + policy.jitter * (random() * 2 - 1));
  const floor = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, policy.maxRetryAfterMs);
  return Math.round(Math.max(jittered, floor));
}
