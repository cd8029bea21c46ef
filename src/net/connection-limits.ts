/**
 * Connection caps of a listener: at most `max` connections in all and `perAddress` from one client
 * address (an IPv6 /64 counts as one address: a host gets a whole /64 to rotate in), with a reserve:
 * once the listener is 90 % full, an address that already holds RESERVE_PER_ADDRESS connections
 * gets no more, so the last tenth stays for addresses that hold few. A connection over a cap is
 * closed at once, before a byte of it is read (no queue: the cheapest answer there is).
 *
 * Behind a proxy (TRUST_PROXY) every connection comes from the proxy: its addresses are exempt from
 * the per-address cap and the reserve, and only `max` applies to them (the proxy is where per-client
 * connection limits belong then). TRUST_PROXY=true trusts every peer, so then only `max` applies.
 *
 * Refusals and accept errors (EMFILE: the process is out of file descriptors) are logged once a
 * minute per listener with their counts, never once per connection.
 */
import type net from 'node:net';
import ipaddr from 'ipaddr.js';
import { addressKey } from '../util/address-key.ts';

export interface ConnectionLimits {
  /** Connections the listener holds at most. */
  max: number;
  /** Connections one client address holds at most (trusted proxies exempt). */
  perAddress: number;
}

/** Above this share of `max`, only addresses holding fewer than RESERVE_PER_ADDRESS connections are let in. */
export const RESERVE_FROM = 0.9;
export const RESERVE_PER_ADDRESS = 4;
/** Refusals and accept errors are summed up in one log line at most this often. */
const LOG_EVERY_MS = 60_000;

/** The ranges of TRUST_PROXY's names, as @fastify/proxy-addr reads them. */
const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Whether a peer address is one of TRUST_PROXY's proxies (true: every peer; false: none). */
export function trustedProxy(trust: boolean | string): (remote: string) => boolean {
  if (trust === true) return () => true;
  if (!trust) return () => false;
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const entry of trust.split(',').map((e) => e.trim())) {
    for (const cidr of NAMED[entry] ?? [entry]) {
      try {
        ranges.push(
          cidr.includes('/')
            ? ipaddr.parseCIDR(cidr)
            : [ipaddr.process(cidr), ipaddr.process(cidr).kind() === 'ipv4' ? 32 : 128],
        );
      } catch {}
    }
  }
  return (remote) => {
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      addr = ipaddr.process(remote);
    } catch {
      return false;
    }
    return ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
  };
}

/** What a guard has seen (read by tests and the log line). */
export interface GuardCounts {
  open: number;
  addresses: number;
  refusedTotal: number;
  refusedAddress: number;
  refusedReserve: number;
  acceptErrors: number;
}

/** Counts and caps the connections of one listener. */
export class ConnectionGuard {
  private readonly byAddress = new Map<string, number>();
  private open = 0;
  private readonly refused = { total: 0, address: 0, reserve: 0 };
  private acceptErrors = 0;
  private lastErrorCode = '';
  private unlogged = { refused: 0, acceptErrors: 0, example: '' };
  private logTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    private readonly limits: ConnectionLimits,
    private readonly trusted: (remote: string) => boolean,
    private readonly log: (msg: string) => void,
  ) {}

  counts(): GuardCounts {
    return {
      open: this.open,
      addresses: this.byAddress.size,
      refusedTotal: this.refused.total,
      refusedAddress: this.refused.address,
      refusedReserve: this.refused.reserve,
      acceptErrors: this.acceptErrors,
    };
  }

  /** Caps `server`'s connections; call before it listens. */
  attach(server: net.Server): void {
    // Over the total, Node closes the accepted handle itself, before any socket object exists.
    server.maxConnections = this.limits.max;
    server.on('drop', (data?: { remoteAddress?: string }) => {
      this.refused.total++;
      this.note(data?.remoteAddress ?? '', 'the listener is full');
    });
    // Runs before the HTTP server's own listener: a refused socket is never parsed.
    server.prependListener('connection', (socket: net.Socket) => this.admit(socket));
    // An accept that fails (EMFILE, ENFILE) is reported as an 'error' on the server, which would
    // otherwise end the process: count it and carry on (libuv has closed the pending connection).
    server.on('error', (err: NodeJS.ErrnoException) => {
      if (err.syscall !== 'accept') return;
      this.acceptErrors++;
      this.lastErrorCode = err.code ?? err.message;
      this.unlogged.acceptErrors++;
      this.schedule();
    });
    server.on('close', () => {
      if (this.logTimer) clearTimeout(this.logTimer);
      this.logTimer = undefined;
    });
  }

  private admit(socket: net.Socket): void {
    const remote = socket.remoteAddress;
    if (!remote) {
      // Already gone (reset before it was handed over).
      socket.destroy();
      return;
    }
    if (this.trusted(remote)) {
      this.open++;
      socket.once('close', () => this.open--);
      return;
    }
    const key = addressKey(remote);
    const held = this.byAddress.get(key) ?? 0;
    if (held >= this.limits.perAddress) {
      this.refused.address++;
      this.refuse(socket, key, 'over the per-address cap');
      return;
    }
    if (held >= RESERVE_PER_ADDRESS && this.open >= Math.floor(this.limits.max * RESERVE_FROM)) {
      this.refused.reserve++;
      this.refuse(socket, key, 'the listener is nearly full');
      return;
    }
    this.open++;
    this.byAddress.set(key, held + 1);
    socket.once('close', () => {
      this.open--;
      const n = (this.byAddress.get(key) ?? 1) - 1;
      if (n > 0) this.byAddress.set(key, n);
      else this.byAddress.delete(key);
    });
  }

  private refuse(socket: net.Socket, key: string, why: string): void {
    socket.destroy();
    this.note(key, why);
  }

  private note(key: string, why: string): void {
    this.unlogged.refused++;
    if (!this.unlogged.example) this.unlogged.example = `${key || 'an address'} (${why})`;
    this.schedule();
  }

  /** The first event logs at once, the rest of the minute in one line at its end. */
  private schedule(): void {
    if (this.logTimer) return;
    this.flush();
    this.logTimer = setTimeout(() => {
      this.logTimer = undefined;
      if (this.unlogged.refused || this.unlogged.acceptErrors) this.schedule();
    }, LOG_EVERY_MS);
    this.logTimer.unref();
  }

  private flush(): void {
    const { refused, acceptErrors, example } = this.unlogged;
    if (refused)
      this.log(
        `${this.name} listener: refused ${refused} connection${refused === 1 ? '' : 's'} (first: ${example}; caps: ${this.limits.max} in all, ${this.limits.perAddress} per address)`,
      );
    if (acceptErrors)
      this.log(
        `${this.name} listener: ${acceptErrors} connection${acceptErrors === 1 ? '' : 's'} could not be accepted (${this.lastErrorCode}): the process is out of file descriptors; lower HTTP_MAX_CONNECTIONS or raise \`ulimit -n\``,
      );
    this.unlogged = { refused: 0, acceptErrors: 0, example: '' };
  }
}
