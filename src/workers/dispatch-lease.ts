import type { AppContext } from '../context.ts';
import { renewBatch } from '../db/queries/dispatch-inflight.ts';
import type { RangeRef } from '../db/queries/dispatch-ranges.ts';

/** Thrown when a batch could not renew its lease in time: it hands nothing more to its provider. */
export class LeaseLost extends Error {
  constructor() {
    super('dispatch lease lost: the claim may have passed to another worker');
  }
}

/**
 * The lease of one dispatch batch while it submits: a heartbeat every third of the lease extends
 * its range, its one-off claims and its groups in flight, so that no other worker reconciles or
 * takes over a live batch however slow the database or the provider is. Before each message goes
 * out, `check` refuses once the lease may have run out (the heartbeat failed for a whole lease):
 * from then on another worker may own the claim, and sending would risk a second submission.
 * The deadline counts from when a renewal was sent, not answered: a renewal that reaches the
 * database late never stretches the lease past what the database granted.
 */
export class BatchLease {
  private readonly leaseMs: number;
  /** Local time before which the lease certainly holds (a quarter of a lease of margin). */
  private deadline: number;
  private readonly open = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly range: RangeRef | undefined,
    private readonly single: { accountId: string; id: string; attempt: number }[],
    claimedAt: number,
  ) {
    this.leaseMs = ctx.config.dispatchLeaseSeconds * 1000;
    this.deadline = claimedAt + this.leaseMs * 0.75;
    this.timer = setInterval(() => this.beat(), this.leaseMs / 3);
    this.timer.unref();
  }

  /** A group was marked in flight (its row's lease starts at the mark; the heartbeat renews it). */
  opened(id: string): void {
    this.open.add(id);
  }

  /** Groups whose outcomes are all recorded (their rows are gone). */
  closed(ids: string[]): void {
    for (const id of ids) this.open.delete(id);
  }

  /** Throws LeaseLost when the lease may have run out. */
  check(): void {
    if (Date.now() > this.deadline) throw new LeaseLost();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
  }

  private beat(): void {
    if (this.renewing) return;
    const started = Date.now();
    this.renewing = renewBatch(
      this.ctx.db,
      { range: this.range, single: this.single, groups: [...this.open] },
      this.ctx.config.dispatchLeaseSeconds,
    )
      .then(() => {
        this.deadline = Math.max(this.deadline, started + this.leaseMs * 0.75);
      })
      // A failed renewal is not fatal by itself: check() stops the batch if none succeeds in time.
      .catch(() => {})
      .finally(() => {
        this.renewing = undefined;
      });
  }
}
