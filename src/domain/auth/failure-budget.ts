/** Whether an attempt may go ahead, and if not, when to come back. */
export interface BudgetCheck {
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfter: number;
}

const MAX_KEYS = 100_000;

/**
 * Fixed one-minute windows of failed attempts per key, in this process. An attempt takes one unit
 * from each of its keys before any work is done (so concurrent attempts cannot overshoot the
 * budget) and gives it back when it succeeds: what stays counted is failures.
 *
 * Per process on purpose: what it protects is this process's CPU from paying scrypt for guesses.
 */
export class FailureBudget {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = Date.now();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  private window(key: string, now: number) {
    const start = now - (now % this.windowMs);
    if (now - this.lastSweep > this.windowMs || this.windows.size > MAX_KEYS) {
      for (const [k, w] of this.windows) if (w.start < start) this.windows.delete(k);
      // Still full of current keys (a spray of made-up client ids): forget rather than grow.
      if (this.windows.size > MAX_KEYS) this.windows.clear();
      this.lastSweep = now;
    }
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    return w;
  }

  /** Takes one unit from every key, or none when any of them is spent. */
  take(keys: string[]): BudgetCheck {
    const now = Date.now();
    const ws = keys.map((k) => this.window(k, now));
    const retryAfter = Math.max(1, Math.ceil((ws[0].start + this.windowMs - now) / 1000));
    if (ws.some((w) => w.count >= this.limit)) return { allowed: false, retryAfter };
    for (const w of ws) w.count++;
    return { allowed: true, retryAfter };
  }

  /** Gives back the unit taken for an attempt that succeeded. */
  giveBack(keys: string[]): void {
    const now = Date.now();
    for (const k of keys) {
      const w = this.window(k, now);
      if (w.count > 0) w.count--;
    }
  }
}
