/**
 * Turns of one account's sends in this process (issue 25): at most `width` of an account's sends
 * are accepted at once, its others wait in order. A send of thousands of recipients takes the event
 * loop and PostgreSQL for a second or more; an account that posts many at once would otherwise
 * have all of them worked on together, and another account's one text would be interleaved with
 * every one of them. Waiting costs nothing but the request's own time; other accounts never wait
 * for an account's turn.
 */
export class AccountLanes {
  private readonly lanes = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly width: number) {}

  /** Runs `fn` in one of the account's lanes, once one is free. */
  async run<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(accountId);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(accountId, lane);
    }
    const l = lane;
    if (l.running >= this.width) await new Promise<void>((resolve) => l.waiting.push(resolve));
    else l.running++;
    try {
      return await fn();
    } finally {
      // A waiting send takes the lane over (running stays); the last one out removes the account.
      const next = l.waiting.shift();
      if (next) next();
      else if (--l.running === 0) this.lanes.delete(accountId);
    }
  }
}
