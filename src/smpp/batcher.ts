import type { Db } from '../db/client.ts';
import type { SendSettings } from '../domain/send/accept/send-messages.ts';
import { type RelayJob, submitSmppBatch } from '../domain/smpp/submit-batch.ts';
import type { SmppSubmission, SmppSubmitOutcome } from '../domain/smpp/submit-message.ts';
import { newId } from '../util/ids.ts';

/** Most submissions one transaction takes. */
export const MAX_BATCH = 1000;
/**
 * Batches of one key written at once, each in a lane of its own: while one commits (its fsync,
 * then the balance row it holds to the commit), the next is already inserting what arrived meanwhile.
 */
const LANES = 2;
/** A lane's relay job takes at most this many messages, for at most RELAY_SPAN_MS; then a new one. */
export const RELAY_MAX = 100_000;
const RELAY_SPAN_MS = 15 * 60_000;
/** Keys whose relay jobs are remembered (the least recently used are forgotten: a new job then). */
const RELAY_KEYS = 1000;

interface Waiting {
  submission: SmppSubmission;
  resolve: (outcome: SmppSubmitOutcome) => void;
  reject: (err: unknown) => void;
}

/** A lane's open relay job: where its next batch goes, and how much it took so far. */
interface Relay extends RelayJob {
  taken: number;
  openedAt: number;
}

interface Queue {
  waiting: Waiting[];
  /** Whether each lane has a batch being written. */
  busy: boolean[];
}

/**
 * Gathers the submit_sm of one credential, source number and validity period that arrive while
 * its lanes are busy, and sends them as one batch (submitSmppBatch: one transaction, one commit, one
 * charge of the balance row) instead of one transaction each, which serialise on that row. A
 * submission arriving when a lane is free goes at the next turn of the event loop (with whatever
 * came in the same read), so a lone submission waits for no timer. Each waiting submission is
 * answered its own outcome.
 *
 * Each lane keeps a relay job (one send job for its batches, one after another, up to RELAY_MAX
 * messages or RELAY_SPAN_MS): the dispatcher then hands a backlog out in large ranges rather than
 * one small job per batch. A batch that did not go whole (answered one by one) ends its lane's
 * relay job; the next batch opens another.
 */
export class SubmitBatcher {
  private readonly queues = new Map<string, Queue>();
  /** Each key's lanes' relay jobs, least recently used first. */
  private readonly relays = new Map<string, (Relay | undefined)[]>();

  constructor(
    private readonly db: Db,
    /** The service's settings the sends apply (its price table). */
    private readonly settings: SendSettings,
  ) {}

  submit(submission: SmppSubmission): Promise<SmppSubmitOutcome> {
    // A batch goes to one send job, whose messages share a validity period.
    const key = `${submission.credentialId}|${submission.source}|${submission.validityPeriod ?? ''}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { waiting: [], busy: Array.from({ length: LANES }, () => false) };
      this.queues.set(key, queue);
    }
    const q = queue;
    return new Promise((resolve, reject) => {
      q.waiting.push({ submission, resolve, reject });
      if (q.waiting.length === 1 && q.busy.includes(false)) setImmediate(() => this.flush(key));
    });
  }

  private async flush(key: string): Promise<void> {
    const queue = this.queues.get(key);
    const lane = queue ? queue.busy.indexOf(false) : -1;
    if (!queue || lane < 0) return;
    if (queue.waiting.length === 0) {
      if (!queue.busy.includes(true)) this.queues.delete(key);
      return;
    }
    queue.busy[lane] = true;
    const batch = queue.waiting.splice(0, MAX_BATCH);
    const relays = this.relaysOf(key);
    const now = Date.now();
    const open = relays[lane];
    const relay =
      open && open.taken < RELAY_MAX && now - open.openedAt <= RELAY_SPAN_MS
        ? open
        : { id: newId(), lastId: null, taken: 0, openedAt: now };
    try {
      const result = await submitSmppBatch(
        this.db,
        batch.map((w) => w.submission),
        this.settings,
        relay,
      );
      relays[lane] = result.lastId
        ? {
            ...relay,
            lastId: result.lastId,
            settings: result.settings,
            contactEvents: result.contactEvents,
            taken: relay.taken + batch.length,
          }
        : undefined;
      for (const [i, w] of batch.entries()) w.resolve(result.outcomes[i]);
    } catch (err) {
      relays[lane] = undefined;
      for (const w of batch) w.reject(err);
    } finally {
      queue.busy[lane] = false;
      if (queue.waiting.length > 0) setImmediate(() => this.flush(key));
      else if (!queue.busy.includes(true)) this.queues.delete(key);
    }
  }

  /** The key's lanes' relay jobs, marked most recently used; the least recent key's are forgotten. */
  private relaysOf(key: string): (Relay | undefined)[] {
    const relays = this.relays.get(key) ?? Array.from({ length: LANES }, () => undefined);
    this.relays.delete(key);
    this.relays.set(key, relays);
    if (this.relays.size > RELAY_KEYS) this.relays.delete(this.relays.keys().next().value as string);
    return relays;
  }
}
