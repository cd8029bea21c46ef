/** How long after its last send an account still counts as sending beside the others (AccountLanes). */
export const SENDING_RECENTLY_MS = 1000;

interface Lane {
  running: number;
  waiting: (() => void)[];
  /** When a send of the account last started or ended. */
  lastAt: number;
}

/**
 * Turns of one account's sends in this process (issue 25): at most `width` of an account's sends
 * are accepted at once, and only one while another account is sending too (a send of its is being
 * worked on, or was in the last SENDING_RECENTLY_MS); its others wait in order. A send of
 * thousands of recipients takes the event loop and PostgreSQL for a second or more; an account
 * that posts many at once would otherwise have all of them worked on together, and another
 * account's one text would be interleaved with every one of them. Alone, an account's sends use
 * both lanes (its answers come sooner); beside another's, one (on two cores another account's
 * 50 texts took 2.5–5.8× their time alone while a big sender's calls were posted two at a time,
 * 0.9–2.2× with this rule: bench:fairness-live). Waiting costs nothing but the request's own time; other accounts never wait for an
 * account's turn.
 */
export class AccountLanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly width: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `fn` in one of the account's lanes, once one is free. */
  async run<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(accountId);
    if (!lane) {
      lane = { running: 0, waiting: [], lastAt: this.now() };
      this.lanes.set(accountId, lane);
    }
    const l = lane;
    l.lastAt = this.now();
    if (l.running < this.widthOf(accountId)) l.running++;
    // Woken with its lane already counted (pump).
    else await new Promise<void>((resolve) => l.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      l.running--;
      l.lastAt = this.now();
      this.pump();
    }
  }

  /** The account's width now: one while another account is sending or sent recently. */
  private widthOf(accountId: string): number {
    const since = this.now() - SENDING_RECENTLY_MS;
    for (const [id, l] of this.lanes) if (id !== accountId && (l.running > 0 || l.lastAt >= since)) return 1;
    return this.width;
  }

  /**
   * Starts the waiting sends each account's width allows now, in order, and forgets the accounts
   * with nothing running, waiting or recent. An account with sends waiting always has one running
   * (its width is at least one), so its next turn comes when that one ends.
   */
  private pump(): void {
    const since = this.now() - SENDING_RECENTLY_MS;
    const sending = (l: Lane) => l.running > 0 || l.lastAt >= since;
    let active = 0;
    for (const l of this.lanes.values()) if (sending(l)) active++;
    for (const [id, l] of this.lanes) {
      const width = active - (sending(l) ? 1 : 0) > 0 ? 1 : this.width;
      while (l.waiting.length > 0 && l.running < width) {
        l.running++;
        (l.waiting.shift() as () => void)();
      }
      if (l.running === 0 && l.waiting.length === 0 && l.lastAt < since) this.lanes.delete(id);
    }
  }
}
