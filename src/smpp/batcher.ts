import type { Db } from '../db/client.ts';
import type { SendSettings } from '../domain/send/accept/send-messages.ts';
import { submitSmppBatch } from '../domain/smpp/submit-batch.ts';
import type { SmppSubmission, SmppSubmitOutcome } from '../domain/smpp/submit-message.ts';

/** Most submissions one transaction takes. */
export const MAX_BATCH = 1000;
/**
 * Batches of one key written at once: while one commits (its fsync, then the balance row it holds
 * to the commit), the next is already inserting what arrived meanwhile.
 */
const IN_FLIGHT = 2;

interface Waiting {
  submission: SmppSubmission;
  resolve: (outcome: SmppSubmitOutcome) => void;
  reject: (err: unknown) => void;
}

/**
 * Gathers the submit_sm of one credential and source number that arrive while its previous
 * batches are being written (IN_FLIGHT at once), and sends them as one (submitSmppBatch: one
 * transaction, one commit, one charge of the balance row) instead of one transaction each, which
 * serialise on that row. A submission
 * arriving when nothing of its key is in flight goes at the next turn of the event loop (with
 * whatever came in the same read), so a lone submission waits for no timer. Each waiting
 * submission is answered its own outcome.
 */
export class SubmitBatcher {
  private readonly queues = new Map<string, { waiting: Waiting[]; running: number }>();

  constructor(
    private readonly db: Db,
    /** The service's settings the sends apply (its price table). */
    private readonly settings: SendSettings,
  ) {}

  submit(submission: SmppSubmission): Promise<SmppSubmitOutcome> {
    // One batch is one send job, whose messages share a validity period.
    const key = `${submission.credentialId}|${submission.source}|${submission.validityPeriod ?? ''}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { waiting: [], running: 0 };
      this.queues.set(key, queue);
    }
    const q = queue;
    return new Promise((resolve, reject) => {
      q.waiting.push({ submission, resolve, reject });
      if (q.running < IN_FLIGHT && q.waiting.length === 1) setImmediate(() => this.flush(key));
    });
  }

  private async flush(key: string): Promise<void> {
    const queue = this.queues.get(key);
    if (!queue || queue.running >= IN_FLIGHT) return;
    if (queue.waiting.length === 0) {
      if (queue.running === 0) this.queues.delete(key);
      return;
    }
    queue.running++;
    const batch = queue.waiting.splice(0, MAX_BATCH);
    try {
      const outcomes = await submitSmppBatch(
        this.db,
        batch.map((w) => w.submission),
        this.settings,
      );
      for (const [i, w] of batch.entries()) w.resolve(outcomes[i]);
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      queue.running--;
      if (queue.waiting.length > 0) setImmediate(() => this.flush(key));
      else if (queue.running === 0) this.queues.delete(key);
    }
  }
}
