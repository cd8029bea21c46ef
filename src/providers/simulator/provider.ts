import type {
  InboundMessage,
  LookupMatch,
  OutboundMessage,
  Provider,
  ProviderError,
  ProviderSink,
  SendResult,
  StatusUpdate,
} from '../types.ts';
import { AttemptBits, DueQueue, type Pending } from './bookkeeping.ts';

/**
 * Magic destination numbers, as carriers' test credentials use them. Anything else that is a
 * valid E.164 number is sent and later delivered.
 */
export const SIMULATOR_MAGIC_NUMBERS = {
  invalid: '+15005550001',
  unroutable: '+15005550002',
  blocked: '+15005550004',
  notSmsCapable: '+15005550009',
} as const;

const SEND_FAILURES: Record<string, ProviderError> = {
  [SIMULATOR_MAGIC_NUMBERS.invalid]: { code: '21211', description: 'Invalid To number' },
  [SIMULATOR_MAGIC_NUMBERS.unroutable]: { code: '21612', description: 'Unroutable: no route to this number' },
  [SIMULATOR_MAGIC_NUMBERS.notSmsCapable]: { code: '21614', description: 'To number is not SMS-capable' },
};
const BLOCKED: ProviderError = { code: '30004', description: 'Message blocked by the carrier' };
const E164 = /^\+[1-9]\d{6,14}$/;

/** What the simulator has done since it was created (for tests and the benchmark). */
export interface SimulatorCounters {
  /** Submissions accepted (status `sent`), each (message id, attempt) counted once. */
  accepted: number;
  /** Submissions answered with a failure (magic numbers, malformed destinations). */
  rejected: number;
  /** Repeated submissions of an already accepted (message id, attempt): answered, not resent. */
  duplicates: number;
  /** Receipts handed to the sink. */
  receipts: number;
  /** Receipts waiting for their delivery time. */
  pending: number;
  /** Inbound messages handed to the sink. */
  inbound: number;
}

/** Options of the simulator. */
export interface SimulatorOptions {
  /** Time between acceptance and the delivery receipt. */
  deliveryDelayMs: number;
  /**
   * How long a (message id, attempt) is remembered to answer a repeated submission without a
   * second receipt; longer than any dispatcher claim lease (the registry uses two leases).
   * Default 15 minutes.
   */
  dedupeWindowMs?: number;
  /** Called when the sink rejects a batch of receipts (they are retried a few times). */
  onError?: (err: unknown) => void;
}

/**
 * The key and bit a (message id, attempt) is remembered under: attempts 0..30 are bits of one small
 * integer per message id (compact for a million ids); any higher attempt gets a key of its own.
 */
function attemptKey(id: string, attempt: number): [string, number] {
  return attempt >= 0 && attempt < 31 ? [id, 1 << attempt] : [`${id}#${attempt}`, 1];
}

/** Smallest wait between two receipt ticks: batches receipts at high rates instead of one timer per ms. */
const MIN_TICK_MS = 50;
const MAX_SINK_TRIES = 5;
const RETRY_DELAY_MS = 1000;
/** Receipts handed to the sink in one call at most (a backlog is drained in bounded batches). */
const MAX_TICK_BATCH = 10_000;

/**
 * The default provider: no network, deterministic. One timer and one FIFO queue carry every
 * receipt (the delivery delay is constant, so the queue is ordered by due time), which keeps it
 * far above the rest of the send path (> 50,000 sends/s in process).
 */
export class SimulatorProvider implements Provider {
  readonly name = 'simulator' as const;
  readonly kind = 'simulator' as const;
  readonly receiptsNameMessage = true;
  private readonly delayMs: number;
  private readonly windowMs: number;
  private readonly onError: (err: unknown) => void;
  private sink: ProviderSink | undefined;
  private readonly queue = new DueQueue();
  /** Receipts the sink rejected, retried after a pause (a queue of their own keeps both ordered). */
  private readonly retries = new DueQueue();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  // Two generations of submitted keys (message id → bit set of attempts seen), rotated every window: memory
  // stays bounded by the send rate, and a key is remembered for at least one full window.
  private current = new AttemptBits();
  private previous = new AttemptBits();
  private rotatedAt = Date.now();
  private inboundSeq = 0;
  private readonly stats = { accepted: 0, rejected: 0, duplicates: 0, receipts: 0, inbound: 0 };

  constructor(opts: SimulatorOptions) {
    this.delayMs = opts.deliveryDelayMs;
    this.windowMs = opts.dedupeWindowMs ?? 15 * 60_000;
    this.onError = opts.onError ?? (() => {});
  }

  /** The deterministic provider message id of one submission. */
  static providerMessageId(messageId: string, attempt: number): string {
    return `sim-${messageId}-${attempt}`;
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    return this.submit(message, Date.now());
  }

  sendMany(messages: OutboundMessage[]): SendResult[] {
    const now = Date.now();
    const results = new Array<SendResult>(messages.length);
    for (let i = 0; i < messages.length; i++) results[i] = this.submit(messages[i], now);
    return results;
  }

  private submit(message: OutboundMessage, now: number): SendResult {
    if (this.closed) {
      return {
        ok: false,
        status: 'failed',
        error: { code: 'SIM-CLOSED', description: 'Simulator is closed' },
        retryable: true,
      };
    }
    const failure =
      SEND_FAILURES[message.to] ??
      (E164.test(message.to) ? undefined : SEND_FAILURES[SIMULATOR_MAGIC_NUMBERS.invalid]);
    if (failure) {
      this.stats.rejected++;
      return { ok: false, status: 'failed', error: failure, retryable: false };
    }
    const providerMessageId = SimulatorProvider.providerMessageId(message.id, message.attempt);
    if (this.remember(message.id, message.attempt, now)) {
      this.stats.accepted++;
      this.queue.push({
        due: now + this.delayMs,
        accountId: message.accountId,
        id: message.id,
        attempt: message.attempt,
        blocked: message.to === SIMULATOR_MAGIC_NUMBERS.blocked,
        tries: 0,
      });
      this.arm();
    } else {
      this.stats.duplicates++;
    }
    return { ok: true, providerMessageId, status: 'sent' };
  }

  /**
   * Answers from the keys it remembers whether this (message id, attempt) was accepted: the
   * simulator is its own carrier, so it can say so honestly (within its dedupe window, and only in
   * the process that accepted it: a killed worker's simulator took its submissions with it).
   */
  async lookup(message: OutboundMessage): Promise<LookupMatch[]> {
    const [key, bit] = attemptKey(message.id, message.attempt);
    const seen = (this.current.get(key) ?? 0) | (this.previous.get(key) ?? 0);
    if (!(seen & bit)) return [];
    return [
      { providerMessageId: SimulatorProvider.providerMessageId(message.id, message.attempt), status: 'sent' },
    ];
  }

  /**
   * A message "from a handset" to one of our numbers, handed to the sink exactly as a carrier's
   * inbound would be. Answers what was delivered.
   */
  async receive(input: {
    from: string;
    to: string;
    text: string;
    media?: { url: string; type?: string }[];
  }): Promise<InboundMessage> {
    if (!this.sink) throw new Error('simulator is not started');
    const message: InboundMessage = {
      provider: 'simulator',
      providerMessageId: `sim-in-${Date.now().toString(36)}-${(++this.inboundSeq).toString(36)}`,
      from: input.from,
      to: input.to,
      text: input.text,
      media: input.media ?? [],
      at: new Date(),
    };
    await this.sink.inbound(message);
    this.stats.inbound++;
    return message;
  }

  /** Counters of what the simulator did (for tests). */
  counters(): SimulatorCounters {
    return { ...this.stats, pending: this.queue.size + this.retries.size };
  }

  /** How many distinct attempts of this message were accepted within the dedupe window. */
  acceptedAttempts(messageId: string): number {
    let bits = (this.current.get(messageId) ?? 0) | (this.previous.get(messageId) ?? 0);
    let n = 0;
    for (; bits; bits &= bits - 1) n++;
    return n;
  }

  async start(sink: ProviderSink): Promise<void> {
    this.sink = sink;
    this.closed = false;
    this.arm();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    this.queue.clear();
    this.retries.clear();
    this.sink = undefined;
  }

  /** Records a submission; answers false if this (message id, attempt) was already accepted. */
  private remember(id: string, attempt: number, now: number): boolean {
    if (now - this.rotatedAt >= this.windowMs) {
      this.previous = this.current;
      this.current = new AttemptBits();
      this.rotatedAt = now;
    }
    const [key, bit] = attemptKey(id, attempt);
    const seen = this.current.get(key) ?? 0;
    if ((seen | (this.previous.get(key) ?? 0)) & bit) return false;
    this.current.set(key, seen | bit);
    return true;
  }

  private arm(): void {
    if (this.timer || this.ticking || !this.sink || this.closed) return;
    const due = Math.min(this.queue.nextDue(), this.retries.nextDue());
    if (due === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.ticking = this.tick().finally(() => {
          this.ticking = undefined;
          this.arm();
        });
      },
      Math.max(due - Date.now(), MIN_TICK_MS),
    );
    this.timer.unref();
  }

  /** Hands what is due to the sink in one call (at most MAX_TICK_BATCH; the rest at the next tick). */
  private async tick(): Promise<void> {
    const sink = this.sink;
    if (!sink) return;
    const now = Date.now();
    const batch: Pending[] = [];
    this.retries.takeDue(now, batch, MAX_TICK_BATCH);
    this.queue.takeDue(now, batch, MAX_TICK_BATCH);
    if (batch.length === 0) return;
    const at = new Date(now);
    const updates = batch.map(
      (p): StatusUpdate => ({
        provider: 'simulator',
        providerMessageId: SimulatorProvider.providerMessageId(p.id, p.attempt),
        message: { accountId: p.accountId, id: p.id },
        ...(p.blocked ? { status: 'undelivered', error: BLOCKED } : { status: 'delivered' }),
        at,
      }),
    );
    try {
      await sink.statuses(updates);
      this.stats.receipts += updates.length;
    } catch (err) {
      this.onError(err);
      if (this.closed) return;
      const retryAt = Date.now() + RETRY_DELAY_MS;
      for (const p of batch) {
        if (++p.tries < MAX_SINK_TRIES) this.retries.push({ ...p, due: retryAt });
      }
    }
  }
}
