import type { AppContext } from '../../../context.ts';
import { withTx } from '../../../db/client.ts';
import { recordSubmissions, type SubmissionOutcome } from '../../../db/queries/message-dispatch.ts';
import type { BatchLease } from './lease.ts';

/**
 * Messages marked in flight together (one write, submit.ts), and acknowledgements recorded together
 * at most (a flush starts as soon as this many wait).
 */
export const GROUP_SIZE = 128;
/** Longest an acknowledgement waits to be recorded when fewer than a group's arrive. */
export const FLUSH_MS = 100;

/**
 * A group's size under this DISPATCH_IN_FLIGHT: GROUP_SIZE, or all the slots where they are fewer.
 * A group takes its slots at once, and a submitter holds its slot until its outcome is recorded: a
 * flush waiting for more acknowledgements than the slots hold would wait for its FLUSH_MS timer
 * each time (the slots turning over ten times a second).
 */
export function groupSize(ctx: AppContext): number {
  return Math.min(GROUP_SIZE, ctx.config.dispatchInFlight);
}

type Tx = Parameters<Parameters<typeof withTx>[1]>[0];

/**
 * Records a batch's outcomes as the provider acknowledges them, in small groups (groupSize
 * outcomes or FLUSH_MS, whichever comes first), one transaction each, one at a time; each deletes
 * the in-flight marks (dispatch_inflight) whose every outcome it completes. A worker killed
 * mid-batch then leaves unrecorded only what was in flight or waiting for its flush.
 */
export class OutcomeRecorder {
  private buffer: SubmissionOutcome[] = [];
  private done: string[] = [];
  private recorded: (() => void)[] = [];
  private readonly left = new Map<string, number>();
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  private timer: NodeJS.Timeout | undefined;
  private readonly flushAt: number;

  constructor(
    private readonly ctx: AppContext,
    private readonly lease?: BatchLease,
  ) {
    this.flushAt = groupSize(ctx);
  }

  /** A marked group of `size` messages whose outcomes will arrive. */
  group(id: string, size: number): void {
    this.left.set(id, size);
  }

  /**
   * One acknowledgement (or failure) of a message of group `groupId`; `onRecorded` runs once the
   * flush that carries it has settled (the submitter holds the message's slot until then).
   */
  add(outcome: SubmissionOutcome, groupId: string, onRecorded?: () => void): void {
    this.push(outcome, groupId);
    if (onRecorded) this.recorded.push(onRecorded);
    if (this.buffer.length >= this.flushAt) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** A whole group answered at once (a provider that takes a batch): recorded by finish, in one statement. */
  addAll(outcomes: SubmissionOutcome[], groupId: string): void {
    for (const o of outcomes) this.push(o, groupId);
  }

  /** Records what is left, and `last` in the same transaction; throws the first failure of any flush. */
  async finish(last?: (tx: Tx) => Promise<void>): Promise<void> {
    const [outcomes, groups, recorded] = this.take();
    try {
      await this.chain;
      if (this.failure) throw this.failure;
      await this.write(outcomes, groups, last);
    } finally {
      for (const r of recorded) r();
    }
  }

  private push(outcome: SubmissionOutcome, groupId: string): void {
    this.buffer.push(outcome);
    const n = (this.left.get(groupId) ?? 1) - 1;
    if (n > 0) this.left.set(groupId, n);
    else {
      this.left.delete(groupId);
      this.done.push(groupId);
    }
  }

  private flush(): void {
    const [outcomes, groups, recorded] = this.take();
    if (outcomes.length === 0 && groups.length === 0) return;
    // A failed flush leaves its marks: their messages are reconciled once the marks' lease passes.
    this.chain = this.chain
      .then(() => this.write(outcomes, groups))
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => {
        for (const r of recorded) r();
      });
  }

  private take(): [SubmissionOutcome[], string[], (() => void)[]] {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const taken: [SubmissionOutcome[], string[], (() => void)[]] = [this.buffer, this.done, this.recorded];
    this.buffer = [];
    this.done = [];
    this.recorded = [];
    return taken;
  }

  private async write(outcomes: SubmissionOutcome[], groups: string[], last?: (tx: Tx) => Promise<void>) {
    if (outcomes.length === 0 && groups.length === 0 && !last) return;

    await withTx(
      this.ctx.db,
      async (tx) => {
        await recordSubmissions(tx, outcomes, groups);
        if (last) await last(tx);
      },
      { indexLookups: true },
    );
    this.lease?.closed(groups);
    const { metrics } = this.ctx;
    if (metrics.enabled) for (const o of outcomes) metrics.submissions(o.provider ?? 'none', o.outcome);
  }
}
