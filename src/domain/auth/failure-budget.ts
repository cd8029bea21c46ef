/** Whether an attempt may go ahead, and if not, when to come back. */
export interface BudgetCheck {
  allowed: boolean;
  /** Seconds until a unit comes free. */
  retryAfter: number;
}

/** Keys kept at most: beyond it the least recently failed key is forgotten. */
export const MAX_KEYS = 100_000;

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
  private lastSweep: number;

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    /** The clock (tests hold it still: a minute's budget must not depend on how fast they run). */
    private readonly clock: () => number = Date.now,
  ) {
    this.lastSweep = clock();
  }

  /** The key's units still inside the window (read only: a key with none is not stored). */
  private live(key: string, now: number): number[] {
    const times = this.taken.get(key);
    if (!times) return [];
    const kept = times.filter((t) => t > now - this.windowMs);
    if (kept.length === 0) this.taken.delete(key);
    return kept;
  }

  /** Stores a key's units as the most recent key; makes room by dropping expired, then least recent, keys. */
  private store(key: string, times: number[], now: number): void {
    this.taken.delete(key);
    if (this.taken.size >= MAX_KEYS && now - this.lastSweep > 1000) {
      for (const [k, t] of this.taken) if (t[t.length - 1] <= now - this.windowMs) this.taken.delete(k);
      this.lastSweep = now;
    }
    // Still full of live keys (a spray of made-up client ids or addresses): forget the key that
    // failed least recently, one at a time, never everyone's counts at once.
    for (const k of this.taken.keys()) {
      if (this.taken.size < MAX_KEYS) break;
      this.taken.delete(k);
    }
    this.taken.set(key, times);
  }

  /** Takes one unit from every key, or none when any of them is spent. */
  take(keys: string[]): BudgetCheck {
    const now = this.clock();
    const all = keys.map((k) => this.live(k, now));
    const spent = all.filter((times) => times.length >= this.limit);
    if (spent.length > 0) {
      // A spent key that keeps being tried is the most recent: never the one forgotten to make room.
      keys.forEach((k, i) => {
        if (all[i].length >= this.limit) {
          this.taken.delete(k);
          this.taken.set(k, all[i]);
        }
      });
      const freeAt = Math.max(...spent.map((times) => times[0] + this.windowMs));
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
    }
    keys.forEach((k, i) => {
      this.store(k, [...all[i], now], now);
    });
    return { allowed: true, retryAfter: 0 };
  }

  /** Keys held (read by tests: bounded by MAX_KEYS). */
  get size(): number {
    return this.taken.size;
  }

  /** Gives back the unit taken for an attempt that succeeded. */
  giveBack(keys: string[]): void {
    for (const k of keys) {
      const times = this.taken.get(k);
      times?.pop();
      if (times?.length === 0) this.taken.delete(k);
    }
  }
}
