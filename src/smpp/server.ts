import { readFileSync } from 'node:fs';
import net, { type AddressInfo, type Server } from 'node:net';
import tls from 'node:tls';
import type { Db } from '../db/client.ts';
import {
  claimSmppOutbox,
  deleteSmppOutbox,
  existingSmppCredentialIds,
  expireSmppOutbox,
  type SmppCredentialRow,
  type SmppOutboxItem,
} from '../db/queries/smpp.ts';
import type { SendSettings } from '../domain/send/accept/send-messages.ts';
import {
  DEFAULT_PARTS_BUDGET,
  PARTS_TTL_MS,
  PartsAssembler,
  type PartsBudget,
  type PendingMessage,
} from './assembler.ts';
import { BindAuthenticator, type BindLimits } from './auth.ts';
import { SubmitBatcher } from './batcher.ts';
import { ConnectionGate } from './connections.ts';
import { inboundParams, receiptParams } from './receipt.ts';
import { EsmeSession } from './session.ts';
import { STATUS } from './status.ts';

/** Settings of the SMPP server (SMPP_SERVER_* in the configuration). */
export interface SmppServerOptions {
  /** The system_id the server answers binds with. */
  systemId: string;
  /** Most submit_sm one bind may have unanswered (ESME_RMSGQFUL beyond). */
  window: number;
  /**
   * Most connections open at once (bound or not); past it a new one takes the place of the oldest
   * unbound connection of the address holding the most, and is refused only when all are bound.
   */
  maxConnections: number;
  /** Most connections open at once from one address (an IPv6 /64); more are closed at accept. */
  maxConnectionsPerAddress: number;
  /** Most submit_sm / submit_multi being worked on in the whole server (ESME_RMSGQFUL beyond). */
  maxSubmitting: number;
  /** Bytes of concatenated parts waiting for their siblings, per bind, per credential and in all (ESME_RMSGQFUL beyond). */
  partsBudget: PartsBudget;
  /** How long a concatenated message's parts wait for the rest (PARTS_TTL_MS; shorter in tests). */
  partsTtlMs: number;
  /** Most binds open at once per credential (ESME_RBINDFAIL beyond). */
  maxBindsPerCredential: number;
  /** A connection that has not bound by then is closed. */
  bindTimeoutMs: number;
  /** A bind quiet this long gets an enquire_link; quiet for another period, it is closed. */
  enquireLinkMs: number;
  /** How long a deliver_sm waits for its deliver_sm_resp. */
  responseTimeoutMs: number;
  /** How often the queue of receipts and inbound texts is read while receivers are bound. */
  pollMs: number;
  /** Receipts and inbound texts no receiver took within this many hours are dropped. */
  keepHours: number;
  /** PEM certificate and key files: the listener speaks TLS when both are given. */
  tlsCert?: string;
  tlsKey?: string;
  bindLimits?: BindLimits;
}

export const DEFAULT_SMPP_SERVER_OPTIONS: SmppServerOptions = {
  systemId: 'Sparrow',
  window: 50,
  maxConnections: 1000,
  maxConnectionsPerAddress: 50,
  maxSubmitting: 2000,
  partsBudget: DEFAULT_PARTS_BUDGET,
  partsTtlMs: PARTS_TTL_MS,
  maxBindsPerCredential: 10,
  bindTimeoutMs: 5_000,
  enquireLinkMs: 60_000,
  responseTimeoutMs: 30_000,
  pollMs: 250,
  keepHours: 72,
};

/** Most deliver_sm one bind may have unanswered. */
const DELIVER_WINDOW = 10;
const LEASE_SECONDS = 60;
const CREDENTIAL_CHECK_MS = 2_000;
const EXPIRE_EVERY_MS = 60_000;

/** A token bucket: `rate` a second, up to one second's worth at once. */
class Bucket {
  private tokens: number;
  private at = Date.now();
  constructor(rate: number) {
    this.tokens = rate;
  }
  take(rate: number): boolean {
    const now = Date.now();
    this.tokens = Math.min(rate, this.tokens + ((now - this.at) / 1000) * rate);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * SMPP 3.4 server for customers' ESMEs (docs/smpp-server.md): binds with per-account credentials,
 * submissions through the API's send path, and deliver_sm (delivery receipts, inbound texts) to the
 * account's receivers from a queue in PostgreSQL that the message events feed.
 */
export class SmppServer {
  readonly options: SmppServerOptions;
  readonly auth: BindAuthenticator;
  readonly parts: PartsAssembler;
  readonly batcher: SubmitBatcher;
  readonly gate: ConnectionGate;
  /** submit_sm / submit_multi being worked on, all binds together. */
  submitting = 0;
  private listener: Server | undefined;
  private readonly sessions = new Set<EsmeSession>();
  private readonly buckets = new Map<string, Bucket>();
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private wakeAgain = false;
  private stopped = false;
  private lastCredentialCheck = 0;
  private lastExpiry = 0;

  constructor(
    readonly db: Db,
    /** The service's settings submissions are sent with (its price table: `ctx.config`). */
    readonly settings: SendSettings,
    options: Partial<SmppServerOptions> = {},
    readonly log: (msg: string) => void = () => {},
  ) {
    this.options = { ...DEFAULT_SMPP_SERVER_OPTIONS, ...options };
    this.auth = new BindAuthenticator(db, this.options.bindLimits);
    this.batcher = new SubmitBatcher(db, settings);
    this.parts = new PartsAssembler(this.options.partsBudget, this.options.partsTtlMs);
    this.gate = new ConnectionGate(
      { total: this.options.maxConnections, perAddress: this.options.maxConnectionsPerAddress },
      log,
    );
  }

  /** Whether the server takes one more submission now (its total of submissions being worked on). */
  canSubmit(): boolean {
    return this.submitting < this.options.maxSubmitting;
  }

  /** Starts listening; answers the port (useful with port 0). */
  async listen(port: number, host = '0.0.0.0'): Promise<number> {
    const onSession = (socket: net.Socket) => {
      if (this.stopped || socket.destroyed) {
        socket.destroy();
        return;
      }
      socket.setNoDelay(true);
      this.sessions.add(new EsmeSession(socket, this));
    };
    const { tlsCert, tlsKey } = this.options;
    const secure = Boolean(tlsCert && tlsKey);
    const server = secure
      ? tls.createServer(
          {
            cert: readFileSync(tlsCert as string),
            key: readFileSync(tlsKey as string),
            // A handshake is part of binding: it gets no longer than the bind itself.
            handshakeTimeout: this.options.bindTimeoutMs,
          },
          onSession,
        )
      : net.createServer();
    // Every raw connection is counted (and capped) at accept, before a TLS handshake or a byte read.
    server.on('connection', (socket: net.Socket) => {
      if (this.stopped) {
        socket.destroy();
        return;
      }
      if (this.gate.admit(socket) && !secure) onSession(socket);
    });
    // A TLS handshake that fails is that client's problem, not the listener's.
    server.on('tlsClientError', () => {});
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.log(`smpp server: ${err.message}`));
    this.listener = server;
    this.schedule(0);
    return (server.address() as AddressInfo).port;
  }

  /** Unbinds every ESME, stops the queue and closes the listener. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    const listener = this.listener;
    this.listener = undefined;
    const closed = listener ? new Promise((r) => listener.close(r)) : Promise.resolve();
    await Promise.all([...this.sessions].map((s) => s.unbind()));
    while (this.polling) await new Promise((r) => setTimeout(r, 10));
    await closed;
  }

  /** Open binds of a credential. */
  bindsOf(credentialId: string): number {
    let n = 0;
    for (const s of this.sessions) if (s.credential?.id === credentialId) n++;
    return n;
  }

  /** Bound sessions, for tests and the log. */
  get boundSessions(): EsmeSession[] {
    return [...this.sessions].filter((s) => s.mode);
  }

  /** A session bound: a receiver gets what waits for its account at once. */
  bound(session: EsmeSession): void {
    this.log(`smpp server: ${session.credential?.system_id} bound as ${session.mode} from ${session.ip}`);
    if (session.isReceiver) this.wake();
  }

  gone(session: EsmeSession): void {
    this.sessions.delete(session);
  }

  /** One submission's unit of the credential's throughput; false when it is spent (ESME_RTHROTTLED). */
  takeThroughput(credential: SmppCredentialRow): boolean {
    let bucket = this.buckets.get(credential.id);
    if (!bucket) {
      bucket = new Bucket(credential.throughput_mps);
      this.buckets.set(credential.id, bucket);
    }
    return bucket.take(credential.throughput_mps);
  }

  /** Reads the queue now rather than at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.wakeAgain = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.pollTimer);
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => void this.poll(), ms);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    this.wakeAgain = false;
    let more = false;
    try {
      await this.housekeeping();
      more = await this.deliverQueued();
    } catch (err) {
      this.log(`smpp server: queue: ${(err as Error).message}`);
    } finally {
      this.polling = false;
    }
    this.schedule(more || this.wakeAgain ? 0 : this.options.pollMs);
  }

  /** Closes binds whose credential was deleted; drops what waited past keepHours. */
  private async housekeeping(): Promise<void> {
    const now = Date.now();
    for (const message of this.parts.expire(now)) this.partsExpired(message);
    if (now - this.lastCredentialCheck >= CREDENTIAL_CHECK_MS) {
      this.lastCredentialCheck = now;
      const bound = this.boundSessions;
      const ids = [...new Set(bound.map((s) => s.credential?.id as string))];
      if (ids.length) {
        const live = await existingSmppCredentialIds(this.db, ids);
        for (const s of bound) {
          if (s.credential && !live.has(s.credential.id)) {
            this.log(`smpp server: credential ${s.credential.system_id} was deleted: closing its bind`);
            void s.unbind();
          }
        }
      }
    }
    if (now - this.lastExpiry >= EXPIRE_EVERY_MS) {
      this.lastExpiry = now;
      const dropped = await expireSmppOutbox(this.db, this.options.keepHours);
      if (dropped)
        this.log(`smpp server: dropped ${dropped} receipts / inbound texts no receiver took in time`);
    }
  }

  /**
   * A concatenated message whose parts did not all arrive in time: it is not sent. When the ESME
   * asked for receipts, each id its parts were answered with gets one (stat:EXPIRED, message_state
   * 3, err:012 as a message whose validity ended) on a receiver bind of its credential, or else of
   * its account, open on this server at that moment; with none bound, none is sent (they are not
   * queued: there is no message row to queue them by).
   */
  private partsExpired(message: PendingMessage): void {
    this.log(
      `smpp server: a concatenated message of ${message.ids.length} part(s) from credential ${message.credentialId} expired incomplete`,
    );
    if (message.receiptMask === 0) return;
    const receivers = this.boundSessions.filter(
      (s) => s.isReceiver && s.credential?.account_id === message.accountId,
    );
    const own = receivers.filter((s) => s.credential?.id === message.credentialId);
    const session = (own.length ? own : receivers)[0];
    if (!session) return;
    const item: SmppOutboxItem = {
      account_id: message.accountId,
      id: '',
      kind: 'receipt',
      credential_id: message.credentialId,
      status: 'failed',
      error: { code: 'MSG-012' },
      smpp_ids: message.ids,
      from_number: message.source,
      to_number: message.destination,
      body: message.firstText,
      message_created_at: new Date(message.first),
    };
    for (const id of message.ids) void session.deliver(receiptParams(item, id));
  }

  /** Sends what waits for the accounts with receivers bound here; answers whether more may wait. */
  private async deliverQueued(): Promise<boolean> {
    const receivers = this.boundSessions.filter((s) => s.isReceiver);
    const byAccount = new Map<string, EsmeSession[]>();
    let capacity = 0;
    for (const s of receivers) {
      const free = DELIVER_WINDOW - s.pendingDeliveries;
      if (free <= 0 || !s.credential) continue;
      capacity += free;
      const list = byAccount.get(s.credential.account_id) ?? [];
      list.push(s);
      byAccount.set(s.credential.account_id, list);
    }
    if (capacity === 0) return false;
    const limit = Math.min(capacity, 200);
    const items = await claimSmppOutbox(this.db, [...byAccount.keys()], limit, LEASE_SECONDS);
    if (items.length === 0) return false;
    const done: SmppOutboxItem[] = [];
    let turn = 0;
    await Promise.all(
      items.map(async (item) => {
        const sessions = byAccount.get(item.account_id) ?? [];
        const own = sessions.filter((s) => s.credential?.id === item.credential_id);
        const pool = own.length ? own : sessions;
        const session = pool[turn++ % pool.length];
        if (session && (await this.deliverItem(session, item))) done.push(item);
      }),
    );
    await deleteSmppOutbox(this.db, done);
    return items.length === limit;
  }

  /** One queued receipt (a deliver_sm per part id) or inbound text; true when it is done with. */
  private async deliverItem(session: EsmeSession, item: SmppOutboxItem): Promise<boolean> {
    const pdus =
      item.kind === 'receipt'
        ? (item.smpp_ids ?? []).map((id) => receiptParams(item, id))
        : [inboundParams(item)].filter((p): p is Record<string, unknown> => p !== undefined);
    let ok = true;
    for (const params of pdus) {
      const status = await session.deliver(params);
      // A permanent refusal is final: the ESME will not take it later either.
      if (status === STATUS.ROK || status === STATUS.RX_P_APPN) continue;
      ok = false;
    }
    return ok;
  }
}
