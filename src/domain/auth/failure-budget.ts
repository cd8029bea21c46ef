/** Whether an attempt may go ahead, and if not, when to come back. */
export interface BudgetCheck {
  allowed: boolean;
  /** Seconds until a unit comes free. */
  retryAfter: number;
}

const MAX_KEYS = 100_000;

/**
 * At most `limit` failed attempts per key in any sliding window (one minute), in this process: the
 * times of the units taken are kept per key (at most `limit` of them), so there is no window edge at
 * which a burst could get twice the budget. An attempt takes one unit from each of its keys before
 * any work is done (so concurrent attempts cannot overshoot) and gives it back when it succeeds:
 * what stays counted is failures.
 *
 * Per process on purpose: what it protects is this process's CPU from paying scrypt for guesses.
 */
export class FailureBudget {
  private taken = new Map<string, number[]>();
  private lastSweep = Date.now();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  private live(key: string, now: number): number[] {
    if (now - this.lastSweep > this.windowMs || this.taken.size > MAX_KEYS) {
      for (const [k, times] of this.taken)
        if (times[times.length - 1] <= now - this.windowMs) this.taken.delete(k);
      // Still full of live keys (a spray of made-up client ids): forget rather than grow.
      if (this.taken.size > MAX_KEYS) this.taken.clear();
      this.lastSweep = now;
    }
    const times = (this.taken.get(key) ?? []).filter((t) => t > now - this.windowMs);
    this.taken.set(key, times);
    return times;
  }

  /** Takes one unit from every key, or none when any of them is spent. */
  take(keys: string[]): BudgetCheck {
    const now = Date.now();
    const all = keys.map((k) => this.live(k, now));
    const spent = all.filter((times) => times.length >= this.limit);
    if (spent.length > 0) {
      const freeAt = Math.max(...spent.map((times) => times[0] + this.windowMs));
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
    }
    for (const times of all) times.push(now);
    return { allowed: true, retryAfter: 0 };
  }

  /** Gives back the unit taken for an attempt that succeeded. */
  giveBack(keys: string[]): void {
    for (const k of keys) this.taken.get(k)?.pop();
  }
}
