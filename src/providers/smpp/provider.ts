import smpp, { type PDU, type Session } from 'smpp';
import { coalesceWrites } from '../../net/coalesce-writes.ts';
import { RecentMap, SubmissionMemo } from '../submission-memo.ts';
import type { OutboundMessage, Provider, ProviderSink, SendResult } from '../types.ts';
import { DeliverSmHandler } from './deliver.ts';
import { submitSmParams } from './pdu.ts';
import { concatUdh, splitForSmpp } from './split.ts';
import { rawSubmitSm } from './submit-sm-bytes.ts';

/** Settings of the SMPP 3.4 adapter. */
export interface SmppOptions {
  /** The instance's name (default `smpp`, the one of SMPP_URL): its messages and receipts carry it. */
  name?: string;
  /** smpp://host:port (ssmpp:// for TLS). */
  url: string;
  systemId: string;
  password: string;
  /** Most submit_sm awaiting their submit_sm_resp at once. */
  windowSize: number;
  /** Most submit_sm per second on this bind (0: no cap). Default 100. */
  maxPerSecond?: number;
  /** How long send() waits for a bind, a window slot and the answer before a retryable failure. Default 10 s. */
  sendTimeoutMs?: number;
  /** enquire_link period. Default 30 s. */
  enquireLinkMs?: number;
  /** First reconnect delay, doubled on each failure up to maxBackoffMs. Defaults 1 s and 30 s. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Time receipts are gathered into one sink.statuses call. Default 20 ms. */
  receiptBatchMs?: number;
  log?: (msg: string) => void;
}

type Failure = Extract<SendResult, { ok: false }>;

/** How many recent submissions and part ids to remember (two generations of this many). */
const REMEMBER_MAX = 50_000;
const TEMPORARY_STATUSES = new Set([
  smpp.ESME_RMSGQFUL,
  smpp.ESME_RTHROTTLED,
  smpp.ESME_RSYSERR,
  smpp.ESME_RX_T_APPN,
]);

function failure(code: string, description: string, retryable: boolean): Failure {
  return { ok: false, status: 'failed', error: { code, description }, retryable };
}

/**
 * SMPP 3.4 over one transceiver bind: submit_sm with delivery receipts requested, long messages
 * as concatenated parts, receipts and inbound messages from deliver_sm. The connection is kept
 * up by enquire_link and re-established with exponential backoff; send() never waits longer
 * than sendTimeoutMs.
 */
export class SmppProvider implements Provider {
  readonly name: string;
  readonly kind = 'smpp' as const;
  private readonly o: Required<Omit<SmppOptions, 'log' | 'name'>> & { log: (msg: string) => void };
  private sink: ProviderSink | undefined;
  private session: Session | undefined;
  private bound = false;
  private closed = true;
  private backoffMs: number;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private enquireTimer: NodeJS.Timeout | undefined;
  private boundWaiters = new Set<() => void>();
  // Window: submit_sm in flight, and who waits for a slot.
  private inFlight = 0;
  private windowWaiters: (() => void)[] = [];
  private readonly outstanding = new Set<(result: Failure) => void>();
  private nextSlotAt = 0;
  private reference = Math.floor(Math.random() * 256);
  // Repeated submissions of one (message id, attempt) answer the first result while remembered.
  private readonly memo = new SubmissionMemo(REMEMBER_MAX);
  // SMSC ids of parts after the first → the first part's id (receipts are reported on that one).
  private readonly partAliases = new RecentMap<string, string>(REMEMBER_MAX);
  private readonly deliver: DeliverSmHandler;

  constructor(opts: SmppOptions) {
    const { name = 'smpp', log = () => {}, ...rest } = opts;
    this.name = name;
    // Log lines name the instance: several SMPP carriers may be bound at once.
    const prefix = name === 'smpp' ? 'smpp: ' : `smpp ${name}: `;
    this.o = {
      maxPerSecond: 100,
      sendTimeoutMs: 10_000,
      enquireLinkMs: 30_000,
      minBackoffMs: 1000,
      maxBackoffMs: 30_000,
      receiptBatchMs: 20,
      ...rest,
      log: (msg) => log(prefix + msg),
    };
    this.backoffMs = this.o.minBackoffMs;
    this.deliver = new DeliverSmHandler(
      name,
      () => this.sink,
      this.partAliases,
      this.o.receiptBatchMs,
      this.o.log,
    );
  }

  /** Whether the transceiver is bound right now. */
  get isBound(): boolean {
    return this.bound;
  }

  linkUp(): boolean {
    return this.bound;
  }

  async start(sink: ProviderSink): Promise<void> {
    this.sink = sink;
    if (!this.closed) return;
    this.closed = false;
    this.connect();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.enquireTimer);
    this.failOutstanding('SMPP-DISCONNECTED', 'The SMPP provider was closed before the SMSC answered');
    for (const w of [...this.boundWaiters]) w();
    await this.deliver.flush();
    const session = this.session;
    this.session = undefined;
    this.bound = false;
    if (!session) return;
    if (session.socket.destroyed) return;
    // Unbind politely; an SMSC that does not answer within a second is cut off.
    await new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        session.destroy();
        resolve();
      }, 1000);
      session.once('close', finish);
      if (!session.unbind({}, () => session.close())) session.destroy();
    });
  }

  send(message: OutboundMessage): Promise<SendResult> {
    return this.memo.submit(message, (m) => this.submit(m));
  }

  private async submit(message: OutboundMessage): Promise<SendResult> {
    if (this.closed) return failure('SMPP-CLOSED', 'The SMPP provider is not running', true);
    let split: ReturnType<typeof splitForSmpp>;
    try {
      split = splitForSmpp(message.body, message.encoding);
    } catch (err) {
      return failure('SMPP-TOO-LONG', (err as Error).message, false);
    }
    const deadline = Date.now() + this.o.sendTimeoutMs;
    const count = split.parts.length;
    const ref = count > 1 ? this.reference++ & 0xff : 0;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const params = submitSmParams({
        from: message.from,
        to: message.to,
        dataCoding: split.dataCoding,
        validitySeconds: message.validityPeriod,
        udh: count > 1 ? concatUdh(ref, count, i + 1) : undefined,
        payload: split.parts[i],
      });
      const r = await this.submitPart(params, deadline, ids[0]);
      if ('error' in r) {
        if (ids.length === 0) return r;
        // Parts already went out: the message stays with this SMSC (routing never moves it).
        const done = ` after ${ids.length} of ${count} parts were accepted`;
        return {
          ...r,
          error: { code: 'SMPP-PARTIAL', description: `${r.error.code}: ${r.error.description}${done}` },
        };
      }
      ids.push(r.messageId);
    }
    return { ok: true, status: 'sent', providerMessageId: ids[0] };
  }

  /** One submit_sm: waits for a bind, a window slot and the pacing slot, then for the answer. */
  private async submitPart(
    params: Record<string, unknown>,
    deadline: number,
    firstPartId: string | undefined,
  ): Promise<{ messageId: string } | Failure> {
    if (!(await this.waitBound(deadline))) {
      return failure(
        'SMPP-DOWN',
        'No SMPP bind is available (the SMSC is unreachable or refused the bind)',
        true,
      );
    }
    if (!(await this.acquireWindow(deadline))) {
      return failure('SMPP-BUSY', 'No submit window slot became free in time', true);
    }
    try {
      const wait = this.pace();
      if (Date.now() + wait > deadline)
        return failure('SMPP-BUSY', 'The throughput cap leaves no slot in time', true);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const session = this.session;
      if (!session || !this.bound || this.closed) return failure('SMPP-DOWN', 'The SMPP bind was lost', true);
      return await new Promise<{ messageId: string } | Failure>((resolve) => {
        let settled = false;
        const settle = (r: { messageId: string } | Failure) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          this.outstanding.delete(settle);
          resolve(r);
        };
        const timer = setTimeout(
          () => settle(failure('SMPP-TIMEOUT', 'No submit_sm_resp in time', true)),
          Math.max(deadline - Date.now(), 1),
        );
        this.outstanding.add(settle);
        coalesceWrites(session.socket);
        const answered = (resp: PDU) => {
          if (resp.command_status !== smpp.ESME_ROK || !resp.message_id) {
            settle(this.submitError(resp.command_status));
            return;
          }
          const messageId = String(resp.message_id);
          // Registered before anything else runs: this part's receipt may be in the same read.
          if (firstPartId) this.alias(messageId, firstPartId);
          settle({ messageId });
        };
        const raw = rawSubmitSm(params);
        const written = raw ? session.send(raw, answered) : session.submit_sm(params, answered);
        if (!written) settle(failure('SMPP-DOWN', 'The SMPP connection is not writable', true));
      });
    } finally {
      this.releaseWindow();
    }
  }

  private submitError(status: number): Failure {
    const hex = `0x${status.toString(16).padStart(8, '0')}`;
    if (status === smpp.ESME_RINVDSTADR)
      return failure('SMPP-INVDSTADR', `Invalid destination address (${hex})`, false);
    return failure(
      `SMPP-${hex}`,
      `The SMSC refused submit_sm with status ${hex}`,
      TEMPORARY_STATUSES.has(status),
    );
  }

  /** Milliseconds to wait for this submission's slot under maxPerSecond (reserves it). */
  private pace(): number {
    if (!this.o.maxPerSecond) return 0;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlotAt);
    this.nextSlotAt = slot + 1000 / this.o.maxPerSecond;
    return slot - now;
  }

  private waitBound(deadline: number): Promise<boolean> {
    if (this.bound) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        this.boundWaiters.delete(waiter);
        resolve(this.bound);
      };
      const timer = setTimeout(waiter, Math.max(deadline - Date.now(), 0));
      this.boundWaiters.add(waiter);
    });
  }

  private acquireWindow(deadline: number): Promise<boolean> {
    if (this.inFlight < this.o.windowSize) {
      this.inFlight++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          const i = this.windowWaiters.indexOf(waiter);
          if (i >= 0) this.windowWaiters.splice(i, 1);
          resolve(false);
        },
        Math.max(deadline - Date.now(), 0),
      );
      this.windowWaiters.push(waiter);
    });
  }

  private releaseWindow(): void {
    const next = this.windowWaiters.shift();
    if (next) next();
    else this.inFlight--;
  }

  private failOutstanding(code: string, description: string): void {
    for (const settle of [...this.outstanding]) settle(failure(code, description, true));
  }

  private alias(partId: string, firstId: string): void {
    this.partAliases.set(partId, firstId);
  }

  // --- connection ---------------------------------------------------------------------------

  private connect(): void {
    if (this.closed) return;
    const session = smpp.connect({ url: this.o.url });
    this.session = session;
    session.on('connect', () => {
      // An SMSC that takes the connection but never answers the bind is dropped and retried.
      const bindTimer = setTimeout(() => session.destroy(), Math.min(this.o.sendTimeoutMs, 10_000));
      bindTimer.unref();
      session.bind_transceiver(
        { system_id: this.o.systemId, password: this.o.password, interface_version: 0x34 },
        (pdu) => {
          clearTimeout(bindTimer);
          if (session !== this.session) return;
          if (pdu.command_status !== smpp.ESME_ROK) {
            this.o.log(`bind refused with status 0x${pdu.command_status.toString(16)}`);
            session.destroy();
            return;
          }
          this.bound = true;
          this.backoffMs = this.o.minBackoffMs;
          this.o.log(`bound to ${this.o.url}`);
          this.startEnquireLink(session);
          for (const w of [...this.boundWaiters]) w();
        },
      );
    });
    session.on('error', (err: Error) => {
      if (session === this.session) this.o.log(err.message);
    });
    session.on('close', () => {
      if (session !== this.session) return;
      this.bound = false;
      this.session = undefined;
      clearInterval(this.enquireTimer);
      this.failOutstanding('SMPP-DISCONNECTED', 'The SMPP connection closed before the SMSC answered');
      this.scheduleReconnect();
    });
    session.on('deliver_sm', (pdu: PDU) => this.deliver.handle(session, pdu));
    session.on('enquire_link', (pdu: PDU) => {
      session.send(pdu.response());
    });
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.o.maxBackoffMs);
    this.o.log(`reconnecting in ${delay} ms`);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private startEnquireLink(session: Session): void {
    clearInterval(this.enquireTimer);
    this.enquireTimer = setInterval(() => {
      // No enquire_link_resp within the period means a dead link: drop it and reconnect.
      const dead = setTimeout(() => session.destroy(), Math.min(this.o.enquireLinkMs, 10_000));
      dead.unref();
      session.enquire_link({}, () => clearTimeout(dead));
    }, this.o.enquireLinkMs);
    this.enquireTimer.unref();
  }
}
