import type { Socket } from 'node:net';
import smpp, { type PDU } from 'smpp';
import type { SmppCredentialRow } from '../db/queries/smpp.ts';
import { coalesceWrites } from '../net/coalesce-writes.ts';
import { submitLayoutStatus } from './frame-check.ts';
import { querySm } from './query.ts';
import type { SmppServer } from './server.ts';
import { STATUS } from './status.ts';
import { submitMulti, submitSm } from './submit.ts';
import { readSubmitSm } from './submit-sm-read.ts';

/** The smallest PDU (a header) and the largest the server reads (the package's limit). */
const HEADER = 16;
export const MAX_PDU = 16_384;
const RESPONSE_BIT = 0x80000000;
const SUBMIT_SM = 0x00000004;
const GENERIC_NACK = 0x80000000;
/**
 * Bytes of answers waiting for the ESME to read before its requests stop being read (the frames
 * already read wait, unanswered, until the answers drain): with MAX_PDU and one read of the
 * socket (64 KiB), what one connection makes this process hold is bounded by about 150 KiB.
 */
export const WRITE_HIGH_WATER = 64 * 1024;

/** How a bind may be used. */
export type BindMode = 'transmitter' | 'receiver' | 'transceiver';

const BIND_MODES: Record<string, BindMode> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/** Answers to commands the server knows but does not carry out. */
const REFUSED: Record<string, number> = {
  cancel_sm: STATUS.RCANCELFAIL,
  replace_sm: STATUS.RREPLACEFAIL,
};

/**
 * One ESME connection: its own framing of the byte stream (a length outside 16..16,384 is answered
 * generic_nack ESME_RINVCMDLEN and the connection closed, as the stream cannot be followed past
 * it), the package's codec for each PDU (a body it cannot read is answered ESME_RINVCMDLEN), the
 * bind state machine, submissions within the window and the credential's rate, and deliver_sm to
 * the ESME with their responses awaited.
 */
export class EsmeSession {
  mode: BindMode | undefined;
  credential: SmppCredentialRow | undefined;
  /** submit_sm being worked on (the window). */
  private submitting = 0;
  private binding = false;
  private closed = false;
  private buffered: Buffer = Buffer.alloc(0);
  private sequence = 0;
  private readonly waiting = new Map<number, { resolve: (status: number) => void; timer: NodeJS.Timeout }>();
  private lastHeard = Date.now();
  private enquirePending = false;
  private readonly keepAlive: NodeJS.Timeout;
  private readonly bindTimer: NodeJS.Timeout;

  constructor(
    private readonly socket: Socket,
    private readonly server: SmppServer,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // An ESME that does not read its answers is not read from either until they drain.
    socket.on('drain', () => {
      socket.resume();
      this.onData(Buffer.alloc(0));
    });
    socket.on('error', () => {});
    socket.on('close', () => this.onClose());
    // A connection that never binds is dropped; a bound one that goes quiet is asked if it lives.
    this.bindTimer = setTimeout(() => {
      if (!this.mode) this.destroy();
    }, server.options.bindTimeoutMs);
    this.bindTimer.unref();
    this.keepAlive = setInterval(() => this.checkAlive(), server.options.enquireLinkMs);
    this.keepAlive.unref();
  }

  /** The peer's address (failure budgets are kept per address). */
  get ip(): string {
    return this.socket.remoteAddress ?? 'unknown';
  }

  get isReceiver(): boolean {
    return this.mode === 'receiver' || this.mode === 'transceiver';
  }

  /** deliver_sm the ESME has not answered yet. */
  get pendingDeliveries(): number {
    return this.waiting.size;
  }

  // --- bytes to PDUs ------------------------------------------------------------------------

  private onData(chunk: Buffer): void {
    this.lastHeard = Date.now();
    if (chunk.length) this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    // Paused (answers not read): the rest of what was read waits for the drain.
    while (this.buffered.length >= 4 && !this.closed && !this.socket.isPaused()) {
      const length = this.buffered.readUInt32BE(0);
      if (length < HEADER || length > MAX_PDU) {
        const seq = this.buffered.length >= HEADER ? this.buffered.readUInt32BE(12) : 0;
        this.server.log(`smpp server: ${this.ip} sent a PDU length of ${length}: closing`);
        this.writeHeader(GENERIC_NACK, STATUS.RINVCMDLEN, seq);
        this.end();
        return;
      }
      if (this.buffered.length < length) return;
      const frame = this.buffered.subarray(0, length);
      this.buffered = this.buffered.subarray(length);
      this.onFrame(frame);
    }
  }

  private onFrame(frame: Buffer): void {
    const commandId = frame.readUInt32BE(4);
    const seq = frame.readUInt32BE(12);
    const layout = submitLayoutStatus(frame, commandId);
    if (layout !== 0) {
      this.writeHeader((commandId | RESPONSE_BIT) >>> 0, layout, seq);
      return;
    }
    let pdu: PDU;
    try {
      // The common submit_sm read directly (submit-sm-read.ts), anything else by the package.
      pdu = (commandId === 0x04 ? readSubmitSm(frame) : undefined) ?? new smpp.PDU(frame);
    } catch {
      if (commandId & RESPONSE_BIT) {
        this.settle(seq, STATUS.RSYSERR);
        return;
      }
      this.writeHeader(this.knownResponseId(commandId) ?? GENERIC_NACK, STATUS.RINVCMDLEN, seq);
      return;
    }
    if (pdu.command === 'unknown') {
      if (commandId & RESPONSE_BIT) return;
      this.writeHeader(GENERIC_NACK, STATUS.RINVCMDID, seq);
      return;
    }
    if (pdu.isResponse()) {
      if (pdu.command === 'enquire_link_resp') this.enquirePending = false;
      this.settle(seq, pdu.command_status);
      return;
    }
    this.onRequest(pdu).catch((err: unknown) => {
      this.server.log(`smpp server: ${pdu.command} failed: ${(err as Error).message}`);
      this.respond(pdu, STATUS.RSYSERR);
    });
  }

  /** The response command id of a known request command id (a body that would not decode). */
  private knownResponseId(commandId: number): number | undefined {
    const known = [0x01, 0x02, 0x04, 0x06, 0x09, 0x15, 0x21, 0x03, 0x08, 0x07];
    return known.includes(commandId) ? (commandId | RESPONSE_BIT) >>> 0 : undefined;
  }

  // --- requests -----------------------------------------------------------------------------

  private async onRequest(pdu: PDU): Promise<void> {
    switch (pdu.command) {
      case 'bind_transmitter':
      case 'bind_receiver':
      case 'bind_transceiver':
        return this.onBind(pdu);
      case 'enquire_link':
        this.send(pdu.response());
        return;
      case 'unbind':
        this.send(pdu.response());
        this.end();
        return;
      case 'submit_sm':
      case 'submit_multi':
        return this.onSubmit(pdu);
    }
    if (!this.mode) return this.respond(pdu, STATUS.RINVBNDSTS);
    if (pdu.command === 'query_sm' && this.credential && this.mode !== 'receiver') {
      const answer = await querySm(this.server.db, pdu, this.credential);
      if (answer.status !== STATUS.ROK) return this.respond(pdu, answer.status);
      this.send(pdu.response(answer.params));
      return;
    }
    if (pdu.command === 'query_sm') return this.respond(pdu, STATUS.RINVBNDSTS);
    const refused = REFUSED[pdu.command];
    if (refused !== undefined) return this.respond(pdu, refused);
    // deliver_sm, outbind, alert_notification, data_sm…: not something an ESME sends a server here.
    this.writeHeader(GENERIC_NACK, STATUS.RINVCMDID, pdu.sequence_number);
  }

  private async onBind(pdu: PDU): Promise<void> {
    if (this.mode || this.binding) return this.respond(pdu, STATUS.RALYBND);
    this.binding = true;
    try {
      const systemId = typeof pdu.system_id === 'string' ? pdu.system_id : '';
      const password = typeof pdu.password === 'string' ? pdu.password : '';
      const result = await this.server.auth.authenticate(systemId, password, this.ip);
      if (this.closed) return;
      if (!result.ok) {
        const status =
          result.reason === 'unknown-system-id'
            ? STATUS.RINVSYSID
            : result.reason === 'wrong-password'
              ? STATUS.RINVPASWD
              : STATUS.RBINDFAIL;
        this.server.log(
          `smpp server: bind of "${systemId.slice(0, 32)}" from ${this.ip} refused (${result.reason})`,
        );
        return this.respond(pdu, status);
      }
      if (this.server.bindsOf(result.credential.id) >= this.server.options.maxBindsPerCredential) {
        this.server.log(`smpp server: ${systemId} has the most binds it may have open`);
        return this.respond(pdu, STATUS.RBINDFAIL);
      }
      this.credential = result.credential;
      this.mode = BIND_MODES[pdu.command];
      clearTimeout(this.bindTimer);
      this.server.gate.markBound(this.socket.remoteAddress, this.socket.remotePort);
      this.server.bound(this);
      this.send(pdu.response({ system_id: this.server.options.systemId, sc_interface_version: 0x34 }));
    } finally {
      this.binding = false;
    }
  }

  private async onSubmit(pdu: PDU): Promise<void> {
    const credential = this.credential;
    if (!credential || this.mode === 'receiver') return this.respond(pdu, STATUS.RINVBNDSTS);
    if (this.submitting >= this.server.options.window || !this.server.canSubmit())
      return this.respond(pdu, STATUS.RMSGQFUL);
    if (!this.server.takeThroughput(credential)) return this.respond(pdu, STATUS.RTHROTTLED);
    this.submitting++;
    this.server.submitting++;
    try {
      const answer =
        pdu.command === 'submit_sm'
          ? await submitSm(this.server, pdu, credential, this)
          : await submitMulti(this.server, pdu, credential, this);
      if (answer.status !== STATUS.ROK) this.respond(pdu, answer.status);
      else if (!this.sendSubmitSmResp(pdu, answer.params)) this.send(pdu.response(answer.params));
    } finally {
      this.submitting--;
      this.server.submitting--;
    }
  }

  // --- to the ESME --------------------------------------------------------------------------

  /** Sends a deliver_sm; resolves with the ESME's command_status (-1: no answer, or the link went). */
  deliver(params: Record<string, unknown>): Promise<number> {
    if (this.closed) return Promise.resolve(-1);
    const seq = this.nextSequence();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(seq, -1), this.server.options.responseTimeoutMs);
      timer.unref();
      this.waiting.set(seq, { resolve, timer });
      if (!this.send(new smpp.PDU('deliver_sm', { ...params, sequence_number: seq }))) this.settle(seq, -1);
    });
  }

  /** Unbinds politely; the connection is cut if the ESME does not answer within a second. */
  async unbind(): Promise<void> {
    if (this.closed) return;
    const seq = this.nextSequence();
    const answered = new Promise<number>((resolve) => {
      const timer = setTimeout(() => this.settle(seq, -1), 1000);
      this.waiting.set(seq, { resolve, timer });
    });
    this.send(new smpp.PDU('unbind', { sequence_number: seq }));
    await answered;
    this.destroy();
  }

  private nextSequence(): number {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  private settle(seq: number, status: number): void {
    const w = this.waiting.get(seq);
    if (!w) return;
    this.waiting.delete(seq);
    clearTimeout(w.timer);
    w.resolve(status);
  }

  private respond(pdu: PDU, status: number): void {
    this.send(pdu.response({ command_status: status }));
  }

  private send(pdu: PDU): boolean {
    if (this.closed || !this.socket.writable) return false;
    let bytes: Buffer;
    try {
      bytes = pdu.toBuffer();
    } catch (err) {
      this.server.log(`smpp server: cannot encode ${pdu.command}: ${(err as Error).message}`);
      if (!pdu.isResponse()) return false;
      bytes = this.header((pdu.command_id as number) >>> 0, STATUS.RSYSERR, pdu.sequence_number);
    }
    this.writeBytes(bytes);
    return true;
  }

  /** Writes a PDU's bytes, coalesced with the others of this turn; past WRITE_HIGH_WATER reads pause. */
  private writeBytes(bytes: Buffer): void {
    coalesceWrites(this.socket);
    if (!this.socket.write(bytes) && this.socket.writableLength > WRITE_HIGH_WATER) this.socket.pause();
  }

  /**
   * A submit_sm's answer written directly: the header and the message_id, an ASCII C-octet string
   * (a message id is a UUID). The package's response() and toBuffer() build and filter a PDU object
   * for those 17 + 37 bytes, one of the costs of each message on the SMPP race. Answers false (the
   * caller answers through the package) for anything else.
   */
  private sendSubmitSmResp(pdu: PDU, params: Record<string, unknown> | undefined): boolean {
    const id = params?.message_id;
    if (pdu.command !== 'submit_sm' || typeof id !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(id))
      return false;
    if (Object.keys(params ?? {}).length !== 1 || this.closed || !this.socket.writable) return false;
    const b = this.header((SUBMIT_SM | RESPONSE_BIT) >>> 0, STATUS.ROK, pdu.sequence_number, id.length + 1);
    b.write(id, HEADER, 'latin1');
    b[b.length - 1] = 0;
    this.writeBytes(b);
    return true;
  }

  /** A PDU's header, and room for `body` octets after it (zeroed). */
  private header(commandId: number, status: number, seq: number, body = 0): Buffer {
    const b = Buffer.alloc(HEADER + body);
    b.writeUInt32BE(b.length, 0);
    b.writeUInt32BE(commandId >>> 0, 4);
    b.writeUInt32BE(status, 8);
    b.writeUInt32BE(seq >>> 0, 12);
    return b;
  }

  private writeHeader(commandId: number, status: number, seq: number): void {
    if (this.closed || !this.socket.writable) return;
    this.socket.write(this.header(commandId, status, seq));
  }

  private checkAlive(): void {
    if (!this.mode || this.closed) return;
    if (Date.now() - this.lastHeard < this.server.options.enquireLinkMs) return;
    if (this.enquirePending) {
      this.server.log(`smpp server: ${this.credential?.system_id} at ${this.ip} stopped answering: closing`);
      this.destroy();
      return;
    }
    this.enquirePending = true;
    this.send(new smpp.PDU('enquire_link', { sequence_number: this.nextSequence() }));
  }

  /** Ends the connection once what was written is out. */
  end(): void {
    if (this.closed) return;
    this.socket.end();
    this.markClosed();
  }

  destroy(): void {
    this.socket.destroy();
    this.markClosed();
  }

  private onClose(): void {
    this.markClosed();
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.bindTimer);
    clearInterval(this.keepAlive);
    for (const seq of [...this.waiting.keys()]) this.settle(seq, -1);
    this.server.gone(this);
  }
}
