import type { AppContext } from '../../../context.ts';
import { renewBatch } from '../../../db/queries/dispatch-inflight.ts';
import type { RangeRef } from '../../../db/queries/dispatch-ranges.ts';

/** Thrown when a batch could not renew its lease in time: it hands nothing more to its provider. */
export class LeaseLost extends Error {
  constructor() {
    super('dispatch lease lost: the claim may have passed to another worker');
  }
}

/**
 * The lease of one dispatch batch while it submits: a heartbeat every third of the lease extends
 * its range, its one-off claims and its groups in flight, so that no other worker reconciles or
 * takes over a live batch however slow the database or the provider is. Each group's mark renews
 * its messages' claim only while it is still this batch's (markInflight); `check` then refuses a group whose
 * mark took so long to answer that the renewed claim may have run out again. The margin counts
 * from when the mark was sent, not answered, so a late answer never stretches a lease.
 */
export class BatchLease {
  private readonly leaseMs: number;
  private readonly open = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly range: RangeRef | undefined,
    private readonly single: { accountId: string; id: string; attempt: number }[],
  ) {
    this.leaseMs = ctx.config.dispatchLeaseSeconds * 1000;
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

  /**
   * Throws LeaseLost when a group's claim, renewed by its mark sent at `markedAt`, may have run out
   * since (the mark took most of a lease to answer).
   */
  check(markedAt: number): void {
    if (Date.now() > markedAt + this.leaseMs * 0.75) throw new LeaseLost();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
  }

  private beat(): void {
    if (this.renewing) return;
    this.renewing = renewBatch(
      this.ctx.db,
      { range: this.range, single: this.single, groups: [...this.open] },
      this.ctx.config.dispatchLeaseSeconds,
    )
      // A failed renewal is not fatal by itself: each group's mark checks its claim again.
      .catch(() => {})
      .finally(() => {
        this.renewing = undefined;
      });
  }
}
