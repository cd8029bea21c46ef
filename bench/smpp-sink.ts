/**
 * A minimal SMSC for benchmarks: answers every bind, enquire_link and unbind, acknowledges every
 * submit_sm with a fresh message id, and counts them (total, distinct destinations, the time of the
 * first and the last). It sends no delivery receipts. Its own framing (no codec package): the
 * sink should cost the peers racing to it as little as it can, and the same for each.
 */
import net from 'node:net';

const RESP = 0x80000000;
const BIND_RECEIVER = 0x01;
const BIND_TRANSMITTER = 0x02;
const SUBMIT_SM = 0x04;
const UNBIND = 0x06;
const BIND_TRANSCEIVER = 0x09;
const ENQUIRE_LINK = 0x15;
const SYSTEM_ID = Buffer.from('sink\0', 'latin1');

export interface SmppSink {
  port: number;
  /** submit_sm acknowledged since the last reset. */
  readonly total: number;
  /** Distinct destination_addr since the last reset. */
  readonly distinct: number;
  /** performance.now() of the first and the last submit_sm since the last reset (0: none). */
  readonly firstAt: number;
  readonly lastAt: number;
  /** Binds since start. */
  readonly binds: number;
  /** Starts a new count. */
  reset(): void;
  /** Resolves when `n` distinct destinations have arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

function header(commandId: number, status: number, seq: number, bodyLength: number): Buffer {
  const b = Buffer.allocUnsafe(16 + bodyLength);
  b.writeUInt32BE(16 + bodyLength, 0);
  b.writeUInt32BE(commandId >>> 0, 4);
  b.writeUInt32BE(status, 8);
  b.writeUInt32BE(seq >>> 0, 12);
  return b;
}

/** The offset just past the C string starting at `at` (its NUL included). */
function skipCString(frame: Buffer, at: number): number {
  const end = frame.indexOf(0, at);
  return end < 0 ? frame.length : end + 1;
}

export async function startSmppSink(host = '127.0.0.1'): Promise<SmppSink> {
  let total = 0;
  let firstAt = 0;
  let lastAt = 0;
  let binds = 0;
  let destinations = new Set<string>();
  let nextId = 1;
  let waiter: { n: number; resolve: () => void } | undefined;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      const out: Buffer[] = [];
      while (buffered.length >= 16) {
        const length = buffered.readUInt32BE(0);
        if (length < 16 || length > 65_536) {
          socket.destroy();
          return;
        }
        if (buffered.length < length) break;
        const frame = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        const commandId = frame.readUInt32BE(4);
        const seq = frame.readUInt32BE(12);
        if (commandId & RESP) continue;
        switch (commandId) {
          case BIND_RECEIVER:
          case BIND_TRANSMITTER:
          case BIND_TRANSCEIVER: {
            binds++;
            const b = header(commandId | RESP, 0, seq, SYSTEM_ID.length);
            SYSTEM_ID.copy(b, 16);
            out.push(b);
            break;
          }
          case SUBMIT_SM: {
            // service_type, source ton/npi, source_addr, dest ton/npi, destination_addr.
            let at = skipCString(frame, 16);
            at = skipCString(frame, at + 2);
            const end = frame.indexOf(0, at + 2);
            const destination = frame.toString('latin1', at + 2, end < 0 ? frame.length : end);
            const now = performance.now();
            if (total === 0) firstAt = now;
            lastAt = now;
            total++;
            destinations.add(destination);
            const id = Buffer.from(`${(nextId++).toString(16)}\0`, 'latin1');
            const b = header(SUBMIT_SM | RESP, 0, seq, id.length);
            id.copy(b, 16);
            out.push(b);
            break;
          }
          case ENQUIRE_LINK:
          case UNBIND:
            out.push(header(commandId | RESP, 0, seq, 0));
            break;
          default:
            out.push(header(RESP, 0x03, seq, 0));
        }
      }
      if (out.length) socket.write(out.length === 1 ? out[0] : Buffer.concat(out));
      if (waiter && destinations.size >= waiter.n) {
        const w = waiter;
        waiter = undefined;
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get total() {
      return total;
    },
    get distinct() {
      return destinations.size;
    },
    get firstAt() {
      return firstAt;
    },
    get lastAt() {
      return lastAt;
    },
    get binds() {
      return binds;
    },
    reset() {
      total = 0;
      firstAt = 0;
      lastAt = 0;
      destinations = new Set();
    },
    waitFor(n, timeoutMs) {
      if (destinations.size >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          reject(new Error(`the sink saw ${destinations.size} of ${n} destinations in ${timeoutMs} ms`));
        }, timeoutMs);
        waiter = {
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
