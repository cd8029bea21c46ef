/**
 * An SMSC on loopback (the `smpp` package's server) that records every submit_sm it receives,
 * answers it with a message id of its own (1, 2, 3…: two of them hand out the same ids), sends a
 * DELIVRD receipt for it, and deduplicates nothing. It takes one bind's credentials.
 *
 * stopAfter(k) makes it go down the way a carrier does mid-send: it acknowledges k submissions,
 * then, at the next one, answers nothing more: what was written before (acknowledgements,
 * receipts) is flushed, the connection is closed and the listener with it, so new connections are
 * refused. Every submission it received after the k-th is recorded as unacknowledged: its sender
 * cannot know whether the SMSC kept it.
 */
import type { AddressInfo } from 'node:net';
import smpp, { type PDU, type Server, type Session } from 'smpp';

/** One submit_sm as the SMSC received it. */
export interface Received {
  to: string;
  from: string;
  /** The message id it answered with; undefined: never acknowledged. */
  messageId?: string;
}

export class RecordingSmsc {
  readonly received: Received[] = [];
  private server: Server | undefined;
  private readonly sessions = new Set<Session>();
  private seq = 0;
  private limit = Number.POSITIVE_INFINITY;
  private down = false;
  private wentDown: () => void = () => {};
  /** Resolves once stopAfter's limit was reached and the SMSC went down. */
  readonly stopped = new Promise<void>((resolve) => {
    this.wentDown = resolve;
  });

  constructor(
    private readonly systemId: string,
    private readonly password: string,
  ) {}

  /** Listens on a free loopback port; answers its smpp:// URL. */
  async listen(): Promise<string> {
    const server = smpp.createServer((session: Session) => this.onSession(session));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    return `smpp://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Acknowledges `k` more submissions in all, then goes down at the next one. */
  stopAfter(k: number): void {
    this.limit = k;
  }

  /** Destinations it acknowledged. */
  acknowledged(): string[] {
    return this.received.filter((r) => r.messageId !== undefined).map((r) => r.to);
  }

  /** Destinations it received and never acknowledged. */
  unacknowledged(): string[] {
    return this.received.filter((r) => r.messageId === undefined).map((r) => r.to);
  }

  /** Sends an inbound text (deliver_sm) on the bound session; answers the ESME's command_status. */
  inbound(from: string, to: string, text: string): Promise<number> {
    const session = [...this.sessions].at(-1);
    if (!session) return Promise.reject(new Error('no bound session'));
    return new Promise((resolve) => {
      session.deliver_sm(
        {
          source_addr: from.replace(/^\+/, ''),
          source_addr_ton: 1,
          destination_addr: to.replace(/^\+/, ''),
          dest_addr_ton: 1,
          short_message: text,
        },
        (resp: PDU) => resolve(Number(resp.command_status)),
      );
    });
  }

  async close(): Promise<void> {
    this.down = true;
    for (const s of this.sessions) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server?.listening) await new Promise((r) => server.close(r));
  }

  private onSession(session: Session): void {
    this.sessions.add(session);
    session.on('error', () => {});
    session.on('close', () => this.sessions.delete(session));
    session.on('bind_transceiver', (pdu: PDU) => {
      if (this.down || pdu.system_id !== this.systemId || pdu.password !== this.password) {
        session.send(pdu.response({ command_status: smpp.ESME_RBINDFAIL }));
        session.close();
        return;
      }
      session.send(pdu.response({ system_id: 'RECSMSC' }));
    });
    session.on('enquire_link', (pdu: PDU) => {
      if (!this.down) session.send(pdu.response());
    });
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('submit_sm', (pdu: PDU) => this.onSubmit(session, pdu));
  }

  private onSubmit(session: Session, pdu: PDU): void {
    const r: Received = { to: `+${pdu.destination_addr}`, from: `+${pdu.source_addr}` };
    this.received.push(r);
    if (this.down) return;
    if (this.seq >= this.limit) {
      this.goDown();
      return;
    }
    r.messageId = String(++this.seq);
    session.send(pdu.response({ message_id: r.messageId }));
    const text = `id:${r.messageId} sub:001 dlvrd:001 submit date:2501011200 done date:2501011201 stat:DELIVRD err:000 text:`;
    session.deliver_sm(
      {
        source_addr: pdu.destination_addr,
        destination_addr: pdu.source_addr,
        esm_class: 0x04,
        short_message: text,
      },
      () => {},
    );
  }

  private goDown(): void {
    this.down = true;
    // end(): what was written (acknowledgements, receipts) reaches the ESME before the FIN; nothing
    // after. The listener closes too: reconnecting is refused.
    for (const s of this.sessions) s.socket.end();
    this.server?.close();
    this.wentDown();
  }
}
