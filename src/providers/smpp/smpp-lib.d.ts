/** The parts of the `smpp` package (0.5.x, untyped JavaScript) that Sparrow uses. */
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  /** A decoded short_message / message_payload: the text (or bytes) and any UDH elements. */
  export interface DecodedMessage {
    message: string | Buffer;
    udh?: Buffer[];
  }

  /** A PDU: its command, header and the parameters of that command as properties. */
  export interface PDU {
    command: string;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): PDU;
    toBuffer(): Buffer;
    // Command parameters and TLVs by their specification names.
    [param: string]: unknown;
  }

  /** The package's codec: a PDU from a whole frame (throws on what it cannot read), or a new one to send. */
  export const PDU: {
    new (command: string | Buffer, options?: Record<string, unknown>): PDU;
    maxLength: number;
  };

  export interface Session extends EventEmitter {
    socket: Socket;
    send(pdu: PDU, responseCallback?: (pdu: PDU) => void, sendCallback?: (pdu: PDU) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
    bind_transceiver(options: Record<string, unknown>, callback?: (pdu: PDU) => void): boolean;
    submit_sm(options: Record<string, unknown>, callback?: (pdu: PDU) => void): boolean;
    deliver_sm(options: Record<string, unknown>, callback?: (pdu: PDU) => void): boolean;
    enquire_link(options?: Record<string, unknown>, callback?: (pdu: PDU) => void): boolean;
    unbind(options?: Record<string, unknown>, callback?: (pdu: PDU) => void): boolean;
  }

  export interface Server extends NetServer {
    sessions: Session[];
  }

  export function connect(
    options: { url: string; auto_enquire_link_period?: number; rejectUnauthorized?: boolean },
    listener?: () => void,
  ): Session;
  export function createServer(listener: (session: Session) => void): Server;

  /** The package's tables of a GSM 03.38 alphabet (filled on the first getCoder). */
  export interface GsmCoder {
    charListDec: Record<number, string>;
    extCharListDec: Record<string, string>;
    escChars?: string;
    escCharsDec?: string;
  }

  const smpp: {
    PDU: typeof PDU;
    gsmCoder: { getCoder(encoding: number): GsmCoder };
    connect: typeof connect;
    createServer: typeof createServer;
    ESME_ROK: number;
    ESME_RSYSERR: number;
    ESME_RINVDSTADR: number;
    ESME_RINVSRCADR: number;
    ESME_RBINDFAIL: number;
    ESME_RINVPASWD: number;
    ESME_RMSGQFUL: number;
    ESME_RTHROTTLED: number;
    ESME_RX_T_APPN: number;
  };
  export default smpp;
}
