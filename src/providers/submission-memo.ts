import type { OutboundMessage, SendResult } from './types.ts';

/** A map that keeps about the last `max`–2×`max` entries: when full, the newest generation becomes the old one. */
export class RecentMap<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.recent.get(key) ?? this.older.get(key);
  }

  set(key: K, value: V): void {
    if (this.recent.size >= this.max) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, value);
  }
}

/**
 * Submission keyed by (message id, attempt): asking again for an attempt that is in flight or was
 * accepted recently answers the first result instead of submitting twice. Carriers' APIs (Twilio's
 * Messages resource, SMPP submit_sm) have no idempotency key of their own, so this process keeps one;
 * across processes the dispatcher's leases keep an attempt with one worker.
 */
export class SubmissionMemo {
  private readonly inFlight = new Map<string, Promise<SendResult>>();
  private readonly accepted: RecentMap<string, SendResult>;

  constructor(max = 50_000) {
    this.accepted = new RecentMap(max);
  }

  submit(message: OutboundMessage, send: (m: OutboundMessage) => Promise<SendResult>): Promise<SendResult> {
    const key = `${message.id}#${message.attempt}`;
    const known = this.accepted.get(key) ?? this.inFlight.get(key);
    if (known) return Promise.resolve(known);
    const p = send(message).then(
      (result) => {
        this.inFlight.delete(key);
        if (result.ok) this.accepted.set(key, result);
        return result;
      },
      (err: unknown) => {
        this.inFlight.delete(key);
        throw err;
      },
    );
    this.inFlight.set(key, p);
    return p;
  }

  /** Settles when every submission now in flight has settled. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }
}
