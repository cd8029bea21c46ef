import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../domain/webhooks/retry-policy.ts';
import { WebhookPump } from '../domain/webhooks/webhook-pump.ts';
import type { WorkerTask } from './index.ts';
import { onWebhookWork } from './webhook-wake.ts';

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
  /** Poll interval when nothing is due, in ms (250); the fan-out wakes the task sooner. */
  idleMs?: number;
  /** How long a claim holds before another worker may take the delivery over. */
  leaseMs?: number;
  /** Where announcements (a delivery given up, a subscription disabled) go; the process's logger by default. */
  log?: (msg: string) => void;
}

/** A delivery succeeds only with a 2xx within this many ms. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Webhook delivery: each round claims one batch of due deliveries (the claim helper's set-based
 * claim, leased with a token) and hands it to the process's pump (`webhook-pump.ts`), which POSTs
 * with bounded concurrency (globally and per subscription, so one slow destination holds only its
 * own slots) and records each attempt and its next try. A round answers at once: 0 after a full
 * batch, else idleMs, woken sooner by the fan-out (new deliveries) or by the pump (room to claim
 * again). At-least-once: if this process dies, its claims come due again when the lease ends and
 * are sent with the same webhook-id. Stopping hands back the claims not yet started.
 */
export function webhookDelivery(opts: DeliveryOptions = {}): WorkerTask {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const concurrency = opts.concurrency ?? 64;
  const perDestination = opts.perDestination ?? 16;
  const batchSize = opts.batchSize ?? 200;
  const idleMs = opts.idleMs ?? 250;
  const prefetch = opts.prefetch ?? 4;
  const settings = {
    policy: { ...DEFAULT_RETRY_POLICY, ...opts.policy },
    timeoutMs,
    concurrency,
    perDestination,
    batchSize,
    maxHeldPerHook: perDestination * prefetch,
    maxHeld: Math.max(concurrency * 2, batchSize),
    leaseMs: opts.leaseMs ?? timeoutMs * (prefetch + 1) + 30_000,
  };
  let pump: WebhookPump | undefined;
  // The loops running this task (one unless it is started twice in a process).
  const wakes = new Set<() => void>();
  const wake = () => {
    for (const w of wakes) w();
  };

  return {
    name: 'webhook-delivery',
    subscribe: (w) => {
      wakes.add(w);
      const off = onWebhookWork(w);
      return () => {
        off();
        wakes.delete(w);
      };
    },
    run: async (ctx) => {
      pump ??= new WebhookPump(settings, opts.log ?? ctx.log);
      pump.clearWakes();
      if (pump.full()) {
        pump.wakeWhenRoom(wake);
        return idleMs;
      }
      const round = await pump.claimRound(ctx);
      if (round.claimed >= round.wanted) return 0;
      if (round.limited.length > 0) pump.wakeWhenShareFrees(round.limited, wake);
      return idleMs;
    },
    stop: async (ctx) => {
      const p = pump;
      pump = undefined;
      await p?.close(ctx);
    },
  };
}
