/**
 * A test ESME on the `smpp` package's client session: binds, submits and records the deliver_sm it
 * is sent (answering each with the status `deliverStatus` says).
 */
import net from 'node:net';
import smpp, { type PDU, type Session } from 'smpp';

export class TestEsme {
  readonly session: Session;
  readonly delivered: PDU[] = [];
  /** command_status answered to deliver_sm (0: accepted). */
  deliverStatus = 0;
  closed = false;

  private constructor(session: Session) {
    this.session = session;
    session.on('error', () => {});
    session.on('close', () => {
      this.closed = true;
    });
    session.on('deliver_sm', (pdu: PDU) => {
      this.delivered.push(pdu);
      session.send(pdu.response({ command_status: this.deliverStatus }));
    });
    session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
  }

  /** Connects over TCP, or TLS (`tls`: any certificate accepted) to a loopback port, from `localAddress` if given. */
  static connect(port: number, tls = false, localAddress?: string): Promise<TestEsme> {
    return new Promise((resolve, reject) => {
      const session = smpp.connect({
        url: `${tls ? 'ssmpp' : 'smpp'}://127.0.0.1:${port}`,
        rejectUnauthorized: false,
        ...(localAddress ? { localAddress } : {}),
      });
      session.once(tls ? 'secureConnect' : 'connect', () => resolve(new TestEsme(session)));
      session.once('error', reject);
    });
  }

  /** Sends a request and answers its response PDU. */
  request(command: string, params: Record<string, unknown> = {}): Promise<PDU> {
    return new Promise((resolve, reject) => {
      const written = this.session.send(new smpp.PDU(command, params), (resp) => resolve(resp));
      if (!written) reject(new Error('not writable'));
    });
  }

  bind(mode: 'transmitter' | 'receiver' | 'transceiver', systemId: string, password: string): Promise<PDU> {
    return this.request(`bind_${mode}`, { system_id: systemId, password, interface_version: 0x34 });
  }

  submit(params: Record<string, unknown>): Promise<PDU> {
    return this.request('submit_sm', params);
  }

  /**
   * A window of submit_sm written together, in one segment (no Nagle wait between them): the server
   * reads them at once, as one batch. Sent one write each, the second could wait for the server's
   * ACK and arrive as a batch of its own.
   */
  submitWindow(list: Record<string, unknown>[]): Promise<PDU[]> {
    const socket = this.session.socket;
    socket.setNoDelay(true);
    socket.cork();
    const answers = list.map((params) => this.submit(params));
    socket.uncork();
    return Promise.all(answers);
  }

  close(): void {
    this.session.destroy();
  }
}

/** A raw TCP connection for bytes the package would never write; collects what comes back. */
export class RawClient {
  readonly socket: net.Socket;
  received = Buffer.alloc(0);
  ended = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (b: Buffer) => {
      this.received = Buffer.concat([this.received, b]);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.ended = true;
    });
  }

  static connect(port: number, localAddress?: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () =>
        resolve(new RawClient(socket)),
      );
      socket.once('error', reject);
    });
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The PDU headers received so far: [command_id, command_status, sequence_number]. */
  headers(): { id: number; status: number; seq: number }[] {
    const out: { id: number; status: number; seq: number }[] = [];
    let b = this.received;
    while (b.length >= 16) {
      const len = b.readUInt32BE(0);
      if (len < 16 || b.length < len) break;
      out.push({ id: b.readUInt32BE(4), status: b.readUInt32BE(8), seq: b.readUInt32BE(12) });
      b = b.subarray(len);
    }
    return out;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A PDU header (and optional body) as raw bytes with the given command_length. */
export function rawPdu(length: number, commandId: number, seq: number, body = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt32BE(length >>> 0, 0);
  head.writeUInt32BE(commandId >>> 0, 4);
  head.writeUInt32BE(0, 8);
  head.writeUInt32BE(seq, 12);
  return Buffer.concat([head, body]);
}
