import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { withTx } from '../db/client.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  failPendingDeliveries,
  recordAttempts,
  releaseClaims,
} from '../db/queries/webhook-deliveries.ts';
import { markWebhooksFailing, markWebhooksHealthy } from '../db/queries/webhooks.ts';
import { buildRequest } from '../domain/webhooks/build-request.ts';
import { DEFAULT_RETRY_POLICY, nextDelay, type RetryPolicy } from '../domain/webhooks/retry-policy.ts';
import { metrics } from '../metrics/metrics.ts';
import { createPoster, type Poster, type PostResult } from '../net/post.ts';
import type { WorkerTask } from './index.ts';
import { waitForWebhookWork } from './webhook-wake.ts';

/** Settings of the delivery task; every one has a production default. */
export interface DeliveryOptions {
  /** Retry schedule, jitter and the failing time after which a subscription is disabled. */
  policy?: Partial<RetryPolicy>;
  /** A 2xx must arrive within this many ms (10 s). */
  timeoutMs?: number;
  /** Requests in flight in this process, over all destinations (64). */
  concurrency?: number;
  /** Requests in flight in this process to one subscription (16). */
  perDestination?: number;
  /** Claimed deliveries held per subscription, as a multiple of perDestination (4). */
  prefetch?: number;
  /** Deliveries claimed per statement (200). */
  batchSize?: number;
  /** Poll interval when nothing is due, in ms (250); the fan-out wakes the loop sooner. */
  idleMs?: number;
  /** How long a claim holds before another worker may take the delivery over. */
  leaseMs?: number;
  /** Where announcements (a subscription disabled) go. */
  log?: (msg: string) => void;
}

interface Finished {
  delivery: ClaimedDelivery;
  token: string;
  at: Date;
  result: PostResult;
}

/** A delivery succeeds only with a 2xx within this many ms. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

const defaultLog = (msg: string) => process.stdout.write(`${new Date().toISOString()} ${msg}\n`);

/**
 * Claims due deliveries in batches and POSTs them with bounded concurrency (globally and per
 * subscription, so one slow destination holds only its own slots), then records each attempt and
 * its next try. At-least-once: a claim is a lease; if this process dies, the delivery comes due
 * again and is sent with the same webhook-id.
 */
export function webhookDelivery(opts: DeliveryOptions = {}): WorkerTask {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.policy };
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const concurrency = opts.concurrency ?? 64;
  const perDestination = opts.perDestination ?? 16;
  const batchSize = opts.batchSize ?? 200;
  const idleMs = opts.idleMs ?? 250;
  const log = opts.log ?? defaultLog;

  // Claimed deliveries are held per subscription: up to `perDestination` running, the rest queued
  // behind them (prefetch), so a fast destination never waits for a claim round trip.
  const prefetch = opts.prefetch ?? 4;
  const maxHeldPerHook = perDestination * prefetch;
  const maxHeld = Math.max(concurrency * 2, batchSize);
  const leaseMs = opts.leaseMs ?? timeoutMs * (prefetch + 1) + 30_000;

  let poster: Poster | undefined;
  let running = 0;
  let heldTotal = 0;
  const held = new Map<string, { running: number; queue: { d: ClaimedDelivery; token: string }[] }>();
  let finished: Finished[] = [];
  let flushing: Promise<void> | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  const waiters = new Set<() => void>();
  const heldBy = (id: string) => {
    const h = held.get(id);
    return h ? h.running + h.queue.length : 0;
  };

  // Resolves when `ready()` holds after a request finishes, or on abort.
  const waitUntil = (ready: () => boolean, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        waiters.delete(check);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const check = () => {
        if (ready()) done();
      };
      if (signal.aborted || ready()) return resolve();
      waiters.add(check);
      signal.addEventListener('abort', done, { once: true });
    });

  /**
   * Nothing more could be claimed: wait for new work (fan-out wake-up or the poll interval) or, when
   * subscriptions used up their share, for half of it to come back (claiming slot by slot would
   * cost a statement per request).
   */
  const pause = async (signal: AbortSignal, limited: string[]) => {
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (limited.length > 0) {
      const half = Math.floor(maxHeldPerHook / 2);
      void waitUntil(() => limited.some((id) => heldBy(id) <= half), ac.signal).then(() => ac.abort());
    }
    await waitForWebhookWork(idleMs, ac.signal);
    ac.abort();
    signal.removeEventListener('abort', onAbort);
  };

  const toOutcome = (f: Finished): AttemptOutcome => {
    const { delivery: d, result: r } = f;
    const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
    let status: AttemptOutcome['status'] = 'succeeded';
    let delay: number | null = null;
    if (!ok) {
      const next = r.status === 410 ? undefined : nextDelay(policy, d.attempts, r.retryAfterMs);
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
  };

  const record = async (ctx: AppContext, batch: Finished[]) => {
    const healthy = new Set<string>();
    const failing = new Set<string>();
    const gone = new Set<string>();
    for (const f of batch) {
      const s = f.result.status;
      if (s !== undefined && s >= 200 && s < 300) healthy.add(f.delivery.webhook_id);
      else if (s === 410) gone.add(f.delivery.webhook_id);
      else failing.add(f.delivery.webhook_id);
    }
    for (const id of healthy) failing.delete(id);
    const disabled = await withTx(ctx.db, async (tx) => {
      await recordAttempts(tx, batch.map(toOutcome));
      await markWebhooksHealthy(tx, [...healthy]);
      const off = await markWebhooksFailing(tx, [...failing], [...gone], policy.disableAfterMs);
      await failPendingDeliveries(
        tx,
        off.map((w) => w.id),
        'The subscription was disabled.',
      );
      return off;
    });
    if (metrics.enabled) {
      for (const f of batch) {
        const o = toOutcome(f);
        metrics.webhookAttempt(
          o.status === 'succeeded' ? 'succeeded' : o.status === 'failed' ? 'failed' : 'retry',
          f.result.durationMs / 1000,
        );
      }
    }
    for (const w of disabled) {
      log(`webhook ${w.id} of account ${w.account_id} (${w.destination}) disabled: ${w.disabled_reason}`);
    }
  };

  // Results are written in batches: one statement for many attempts.
  const drain = async (ctx: AppContext) => {
    while (finished.length > 0) {
      const batch = finished;
      finished = [];
      try {
        await record(ctx, batch);
      } catch (err) {
        // Not recorded: put back and try again later (the leases keep the rows from being re-sent meanwhile).
        finished = batch.concat(finished);
        log(`webhook-delivery: recording attempts failed: ${(err as Error).message}`);
        return 1000;
      }
    }
    return 0;
  };

  const flush = (ctx: AppContext): Promise<void> => {
    if (flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = undefined;
    }
    if (!flushing) {
      // `.then` runs after this assignment even when drain finishes at once.
      flushing = drain(ctx).then((retryIn) => {
        flushing = undefined;
        if (finished.length > 0) scheduleFlush(ctx, retryIn || 5);
      });
    }
    return flushing;
  };

  const scheduleFlush = (ctx: AppContext, ms: number) => {
    if (finished.length >= batchSize) {
      void flush(ctx);
      return;
    }
    flushTimer ??= setTimeout(() => {
      flushTimer = undefined;
      void flush(ctx);
    }, ms);
  };

  const launch = (ctx: AppContext, p: Poster, hookId: string, d: ClaimedDelivery, token: string) => {
    running++;
    const at = new Date();
    const { body, headers } = buildRequest(d, at.getTime(), ctx.secrets.open);
    void p.post(d.destination, body, headers, timeoutMs).then((result) => {
      finished.push({ delivery: d, token, at, result });
      running--;
      heldTotal--;
      const h = held.get(hookId);
      if (h) {
        h.running--;
        if (h.running === 0 && h.queue.length === 0) held.delete(hookId);
      }
      scheduleFlush(ctx, 5);
      pump(ctx, p);
      for (const check of [...waiters]) check();
    });
  };

  // Starts queued deliveries while their subscription and the process have free slots.
  const pump = (ctx: AppContext, p: Poster) => {
    for (const [hookId, h] of held) {
      while (running < concurrency && h.running < perDestination && h.queue.length > 0) {
        const next = h.queue.shift()!;
        h.running++;
        launch(ctx, p, hookId, next.d, next.token);
      }
      if (running >= concurrency) return;
    }
  };

  return {
    name: 'webhook-delivery',
    run: async (ctx, signal) => {
      poster ??= createPoster({
        allowPrivate: ctx.config.webhooksAllowPrivate,
        perDestination: concurrency,
        total: concurrency,
      });
      const p = poster;
      while (!signal.aborted) {
        if (heldTotal >= maxHeld) {
          await waitUntil(() => heldTotal <= maxHeld / 2, signal);
          continue;
        }
        const token = randomUUID();
        const want = Math.min(batchSize, maxHeld - heldTotal);
        const busy = new Map([...held].map(([id, h]) => [id, h.running + h.queue.length]));
        const claimed = await claimDueDeliveries(ctx.db, {
          limit: want,
          perWebhook: maxHeldPerHook,
          busy,
          leaseMs,
          token,
        });
        for (const d of claimed) {
          const h = held.get(d.webhook_id) ?? { running: 0, queue: [] };
          held.set(d.webhook_id, h);
          h.queue.push({ d, token });
          heldTotal++;
        }
        pump(ctx, p);
        if (claimed.length < want) {
          // Subscriptions that got all the share they had when claiming may have more due work.
          const limited = [...held.keys()].filter(
            (id) => (busy.get(id) ?? 0) + claimed.filter((d) => d.webhook_id === id).length >= maxHeldPerHook,
          );
          await pause(signal, limited);
        }
      }
      // Stopping: hand back what was claimed but not started, so another worker sends it now
      // rather than after the lease; let the requests in flight finish (bounded by the timeout).
      const unsent = [...held.values()].flatMap((h) => h.queue.splice(0));
      heldTotal -= unsent.length;
      await releaseClaims(
        ctx.db,
        unsent.map((u) => ({ accountId: u.d.account_id, id: u.d.id, token: u.token })),
      ).catch(() => {});
      await waitUntil(() => running === 0, new AbortController().signal);
      // Bounded: if the database stays away, the leases bring these deliveries back anyway.
      for (let i = 0; i < 10 && (flushing || finished.length > 0); i++) {
        await flush(ctx);
        if (finished.length > 0) await new Promise((r) => setTimeout(r, 200));
      }
      poster = undefined;
      p.close();
      return 0;
    },
  };
}
