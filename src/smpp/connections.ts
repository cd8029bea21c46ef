/**
 * The SMPP listener's connection caps: at most `total` connections and `perAddress` from one
 * client address (an IPv6 /64 counts as one address). The reserve is the unbound connections
 * themselves: when the listener is full, a new connection takes the place of the oldest unbound
 * connection of the address holding the most unbound ones, so idle sockets (from one address or
 * many) never keep a bind from another address out. Bound sessions are never evicted: there are
 * only as many as valid credentials allow (maxBindsPerCredential each).
 */
import type net from 'node:net';
import { addressKey } from '../util/address-key.ts';

export interface ConnectionCaps {
  total: number;
  perAddress: number;
}

interface Conn {
  socket: net.Socket;
  key: string;
  /** `address|port`. */
  peer: string;
  bound: boolean;
}

/** What the gate has done (read by tests and the bench). */
export interface GateCounts {
  open: number;
  refusedAddress: number;
  refusedFull: number;
  evicted: number;
}

export class ConnectionGate {
  /** Open connections by address key, oldest first. */
  private readonly byAddress = new Map<string, Set<Conn>>();
  /** The same connections by `address|port` (how a TLS session finds its raw connection). */
  private readonly byPeer = new Map<string, Conn>();
  private readonly unboundByAddress = new Map<string, number>();
  private open = 0;
  private readonly counted = { refusedAddress: 0, refusedFull: 0, evicted: 0 };

  constructor(
    private readonly caps: ConnectionCaps,
    private readonly log: (msg: string) => void = () => {},
  ) {}

  counts(): GateCounts {
    return { open: this.open, ...this.counted };
  }

  /** Counts a new raw connection, or closes it (over its address's cap; full with nothing to evict). */
  admit(socket: net.Socket): boolean {
    const remote = socket.remoteAddress;
    if (!remote) {
      socket.destroy();
      return false;
    }
    const key = addressKey(remote);
    const mine = this.byAddress.get(key);
    if ((mine?.size ?? 0) >= this.caps.perAddress) {
      if (this.counted.refusedAddress++ % 1000 === 0)
        this.log(`smpp server: ${key} holds ${this.caps.perAddress} connections: refusing more`);
      socket.destroy();
      return false;
    }
    if (this.open >= this.caps.total && !this.evictUnbound()) {
      if (this.counted.refusedFull++ % 1000 === 0)
        this.log(`smpp server: ${this.caps.total} connections open, all bound: refusing more`);
      socket.destroy();
      return false;
    }
    const conn: Conn = { socket, key, peer: `${remote}|${socket.remotePort}`, bound: false };
    const set = mine ?? new Set<Conn>();
    set.add(conn);
    this.byAddress.set(key, set);
    this.byPeer.set(conn.peer, conn);
    this.unboundByAddress.set(key, (this.unboundByAddress.get(key) ?? 0) + 1);
    this.open++;
    socket.once('close', () => this.remove(conn));
    return true;
  }

  /** A session on this peer bound: its connection is no longer evictable. */
  markBound(remoteAddress: string | undefined, remotePort: number | undefined): void {
    const conn = this.byPeer.get(`${remoteAddress}|${remotePort}`);
    if (!conn || conn.bound) return;
    conn.bound = true;
    this.decUnbound(conn.key);
  }

  /** Closes the oldest unbound connection of the address with the most of them; false if none. */
  private evictUnbound(): boolean {
    let worst: string | undefined;
    let most = 0;
    for (const [key, n] of this.unboundByAddress)
      if (n > most) {
        most = n;
        worst = key;
      }
    if (worst === undefined) return false;
    for (const conn of this.byAddress.get(worst) ?? []) {
      if (conn.bound) continue;
      this.counted.evicted++;
      this.remove(conn);
      conn.socket.destroy();
      return true;
    }
    return false;
  }

  private remove(conn: Conn): void {
    const set = this.byAddress.get(conn.key);
    if (!set?.delete(conn)) return;
    if (set.size === 0) this.byAddress.delete(conn.key);
    if (this.byPeer.get(conn.peer) === conn) this.byPeer.delete(conn.peer);
    if (!conn.bound) this.decUnbound(conn.key);
    this.open--;
  }

  private decUnbound(key: string): void {
    const n = (this.unboundByAddress.get(key) ?? 1) - 1;
    if (n > 0) this.unboundByAddress.set(key, n);
    else this.unboundByAddress.delete(key);
  }
}
