import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { withTx } from '../../db/client.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  failPendingDeliveries,
  recordAttempts,
  releaseClaims,
} from '../../db/queries/webhook-deliveries.ts';
import { markWebhooksFailing, markWebhooksHealthy } from '../../db/queries/webhooks.ts';
import { createPoster, type Poster, type PostResult } from '../../net/post.ts';
import { buildRequest } from './build-request.ts';
import { nextDelay, type RetryPolicy } from './retry-policy.ts';

/** The settings of a pump (see DeliveryOptions for their meaning and defaults). */
export interface PumpSettings {
  policy: RetryPolicy;
  timeoutMs: number;
  concurrency: number;
  perDestination: number;
  batchSize: number;
  /** Claimed deliveries held per subscription (perDestination × prefetch). */
  maxHeldPerHook: number;
  /** Claimed deliveries held in the process. */
  maxHeld: number;
  leaseMs: number;
  /**
   * Requests one account's subscriptions may have running together (default: concurrency / 4, at
   * least perDestination). An account may go past it only while that leaves this many slots free,
   * so another account's first attempt always finds a slot (issue 25: six hanging subscriptions of
   * one account held all 64 slots until their timeouts).
   */
  perAccount?: number;
  /** Claimed deliveries held for one account (default: half of maxHeld, at least maxHeldPerHook). */
  maxHeldPerAccount?: number;
}

/** A claimed delivery waiting for (or holding) a request slot, with the claim's token. */
interface Held {
  d: ClaimedDelivery;
  token: string;
}

/** A finished request, to record. */
interface Finished extends Held {
  at: Date;
  result: PostResult;
}

/** What one claim round did. */
export interface ClaimRound {
  claimed: number;
  wanted: number;
  /** Subscriptions that got all their share: they may have more due work once half of it is done. */
  limited: string[];
}

const ok = (r: PostResult) => r.status !== undefined && r.status >= 200 && r.status < 300;

/**
 * The delivery engine of one process, shared by the rounds of the webhook-delivery task: holds
 * the claimed deliveries per subscription (up to `perDestination` requests running each, the rest
 * queued behind them so a fast destination never waits for a claim round trip), POSTs them with
 * bounded concurrency, and records the outcomes in batches (one statement for many attempts,
 * guarded by each claim's token). Claims are made by `claimRound` (the claim helper's set-based
 * claim); `close` hands back what was never started and lets the requests in flight finish.
 */
export class WebhookPump {
  private poster: Poster | undefined;
  private running = 0;
  private heldTotal = 0;
  private readonly held = new Map<string, { running: number; queue: Held[]; account: string }>();
  /** Requests running per account. */
  private readonly accountRunning = new Map<string, number>();
  private finished: Finished[] = [];
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Checks run after each finished request (conditions a waiting round is woken on). */
  private readonly watchers = new Set<() => void>();

  constructor(
    private readonly s: PumpSettings,
    private readonly log: (msg: string) => void,
  ) {}

  /** Whether the process holds all the claimed deliveries it may. */
  full(): boolean {
    return this.heldTotal >= this.s.maxHeld;
  }

  /** Forgets the wake-ups asked for by earlier rounds (each round asks anew). */
  clearWakes(): void {
    this.watchers.clear();
  }

  /** Calls `wake` once, after a finished request, when `ready()` holds (or at once if it does). */
  wakeWhen(ready: () => boolean, wake: () => void): void {
    if (ready()) {
      wake();
      return;
    }
    const check = () => {
      if (!ready()) return;
      this.watchers.delete(check);
      wake();
    };
    this.watchers.add(check);
  }

  /** Wakes `wake` when the process may claim again (half its holding done). */
  wakeWhenRoom(wake: () => void): void {
    this.wakeWhen(() => this.heldTotal <= this.s.maxHeld / 2, wake);
  }

  /** Wakes `wake` when one of the `limited` subscriptions has worked through half its share. */
  wakeWhenShareFrees(limited: string[], wake: () => void): void {
    const half = Math.floor(this.s.maxHeldPerHook / 2);
    this.wakeWhen(() => limited.some((id) => this.heldBy(id) <= half), wake);
  }

  /** Claims one batch of due deliveries (within the process's and each subscription's share) and starts them. */
  async claimRound(ctx: AppContext): Promise<ClaimRound> {
    this.poster ??= createPoster({
      allowPrivate: ctx.config.webhooksAllowPrivate,
      perDestination: this.s.concurrency,
      total: this.s.concurrency,
    });
    const token = randomUUID();
    const wanted = Math.min(this.s.batchSize, this.s.maxHeld - this.heldTotal);
    const busy = new Map([...this.held].map(([id, h]) => [id, h.running + h.queue.length]));
    const busyAccounts = new Map<string, number>();
    for (const h of this.held.values())
      busyAccounts.set(h.account, (busyAccounts.get(h.account) ?? 0) + h.running + h.queue.length);
    const claimed = await claimDueDeliveries(ctx.db, {
      limit: wanted,
      perWebhook: this.s.maxHeldPerHook,
      busy,
      perAccount: this.maxHeldPerAccount(),
      busyAccounts,
      leaseMs: this.s.leaseMs,
      token,
    });
    const got = new Map<string, number>();
    for (const d of claimed) {
      const h = this.held.get(d.webhook_id) ?? { running: 0, queue: [], account: d.account_id };
      this.held.set(d.webhook_id, h);
      h.queue.push({ d, token });
      this.heldTotal++;
      got.set(d.webhook_id, (got.get(d.webhook_id) ?? 0) + 1);
    }
    this.pump(ctx);
    const limited = [...this.held.keys()].filter(
      (id) => (busy.get(id) ?? 0) + (got.get(id) ?? 0) >= this.s.maxHeldPerHook,
    );
    return { claimed: claimed.length, wanted, limited };
  }

  /**
   * Stops: hands back what was claimed but not started, so another worker sends it now rather
   * than after the lease, lets the requests in flight finish (bounded by the timeout) and records them.
   */
  async close(ctx: AppContext): Promise<void> {
    const unsent = [...this.held.values()].flatMap((h) => h.queue.splice(0));
    this.heldTotal -= unsent.length;
    await releaseClaims(
      ctx.db,
      unsent.map((u) => ({ accountId: u.d.account_id, id: u.d.id, token: u.token })),
    ).catch((err: unknown) =>
      this.log(`webhook-delivery: handing back ${unsent.length} claims failed: ${(err as Error).message}`),
    );
    await new Promise<void>((resolve) => this.wakeWhen(() => this.running === 0, resolve));
    // Bounded: if the database stays away, the leases bring these deliveries back anyway.
    for (let i = 0; i < 10 && (this.flushing || this.finished.length > 0); i++) {
      await this.flush(ctx);
      if (this.finished.length > 0) await new Promise((r) => setTimeout(r, 200));
    }
    this.poster?.close();
    this.poster = undefined;
  }

  private heldBy(id: string): number {
    const h = this.held.get(id);
    return h ? h.running + h.queue.length : 0;
  }

  private perAccount(): number {
    return this.s.perAccount ?? Math.max(this.s.perDestination, Math.floor(this.s.concurrency / 4));
  }

  private maxHeldPerAccount(): number {
    return this.s.maxHeldPerAccount ?? Math.max(this.s.maxHeldPerHook, Math.floor(this.s.maxHeld / 2));
  }

  /** Whether the account may start one more request: within its share, or past it while the reserve stays free. */
  private accountMay(account: string): boolean {
    const share = this.perAccount();
    const running = this.accountRunning.get(account) ?? 0;
    return running < share || this.running < this.s.concurrency - share;
  }

  // Starts queued deliveries while their subscription, their account and the process have free
  // slots: first each account within its share (every account in turn), then past it.
  private pump(ctx: AppContext): void {
    for (const withinShare of [true, false]) {
      for (const [hookId, h] of this.held) {
        while (
          this.running < this.s.concurrency &&
          h.running < this.s.perDestination &&
          h.queue.length > 0 &&
          (withinShare
            ? (this.accountRunning.get(h.account) ?? 0) < this.perAccount()
            : this.accountMay(h.account))
        ) {
          const next = h.queue.shift() as Held;
          h.running++;
          this.accountRunning.set(h.account, (this.accountRunning.get(h.account) ?? 0) + 1);
          this.launch(ctx, hookId, next);
        }
        if (this.running >= this.s.concurrency) return;
      }
    }
  }

  private launch(ctx: AppContext, hookId: string, { d, token }: Held): void {
    const poster = this.poster as Poster;
    this.running++;
    const at = new Date();
    const { body, headers } = buildRequest(d, at.getTime(), ctx.secrets.open);
    void poster.post(d.destination, body, headers, this.s.timeoutMs).then((result) => {
      this.finished.push({ d, token, at, result });
      this.running--;
      this.heldTotal--;
      const left = (this.accountRunning.get(d.account_id) ?? 1) - 1;
      if (left > 0) this.accountRunning.set(d.account_id, left);
      else this.accountRunning.delete(d.account_id);
      const h = this.held.get(hookId);
      if (h) {
        h.running--;
        if (h.running === 0 && h.queue.length === 0) this.held.delete(hookId);
      }
      this.scheduleFlush(ctx, 5);
      this.pump(ctx);
      for (const check of [...this.watchers]) check();
    });
  }

  private outcome(f: Finished): AttemptOutcome {
    const { d, result: r } = f;
    let status: AttemptOutcome['status'] = 'succeeded';
    let delay: number | null = null;
    if (!ok(r)) {
      const next = r.status === 410 ? undefined : nextDelay(this.s.policy, d.attempts, r.retryAfterMs);
      status = next === undefined ? 'failed' : 'pending';
      delay = next ?? null;
    }
    return {
      accountId: d.account_id,
      id: d.id,
      token: f.token,
      status,
      nextAttemptInMs: delay,
      entry: {
        at: f.at.toISOString(),
        statusCode: r.status ?? null,
        durationMs: r.durationMs,
        error: r.error ?? null,
      },
    };
  }

  private async record(ctx: AppContext, batch: Finished[]): Promise<void> {
    const healthy = new Set<string>();
    const failing = new Set<string>();
    const gone = new Set<string>();
    for (const f of batch) {
      if (ok(f.result)) healthy.add(f.d.webhook_id);
      else if (f.result.status === 410) gone.add(f.d.webhook_id);
      else failing.add(f.d.webhook_id);
    }
    for (const id of healthy) failing.delete(id);
    const outcomes = batch.map((f) => this.outcome(f));
    const { disabled, recorded } = await withTx(ctx.db, async (tx) => {
      const recorded = await recordAttempts(tx, outcomes);
      await markWebhooksHealthy(tx, [...healthy]);
      const off = await markWebhooksFailing(tx, [...failing], [...gone], this.s.policy.disableAfterMs);
      await failPendingDeliveries(
        tx,
        off.map((w) => w.id),
        'The subscription was disabled.',
      );
      return { disabled: off, recorded };
    });
    batch.forEach((f, i) => {
      const o = outcomes[i];
      if (ctx.metrics.enabled)
        ctx.metrics.webhookAttempt(
          o.status === 'succeeded' ? 'succeeded' : o.status === 'failed' ? 'failed' : 'retry',
          f.result.durationMs / 1000,
        );
      // A delivery given up for good is a per-item failure the operator hears of.
      if (o.status === 'failed' && recorded.has(o.id))
        this.log(
          `webhook-delivery delivery ${f.d.id} (webhook ${f.d.webhook_id}, event ${f.d.event_id}): given up after ${f.d.attempts} attempts: ${f.result.status ?? f.result.error ?? 'no answer'}`,
        );
    });
    for (const w of disabled) {
      this.log(
        `webhook ${w.id} of account ${w.account_id} (${w.destination}) disabled: ${w.disabled_reason}`,
      );
    }
  }

  // Results are written in batches: one statement for many attempts.
  private async drain(ctx: AppContext): Promise<number> {
    while (this.finished.length > 0) {
      const batch = this.finished;
      this.finished = [];
      try {
        await this.record(ctx, batch);
      } catch (err) {
        // Not recorded: put back and try again later (the leases keep the rows from being re-sent meanwhile).
        this.finished = batch.concat(this.finished);
        this.log(`webhook-delivery: recording attempts failed: ${(err as Error).message}`);
        return 1000;
      }
    }
    return 0;
  }

  private flush(ctx: AppContext): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    if (!this.flushing) {
      // `.then` runs after this assignment even when drain finishes at once.
      this.flushing = this.drain(ctx).then((retryIn) => {
        this.flushing = undefined;
        if (this.finished.length > 0) this.scheduleFlush(ctx, retryIn || 5);
      });
    }
    return this.flushing;
  }

  private scheduleFlush(ctx: AppContext, ms: number): void {
    if (this.finished.length >= this.s.batchSize) {
      void this.flush(ctx);
      return;
    }
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush(ctx);
    }, ms);
  }
}
