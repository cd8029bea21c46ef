import ipaddr from 'ipaddr.js';

/**
 * The key a client address is counted under by every per-address limit (connections, rate limits,
 * sign-in and bind failures): IPv4 as it is (IPv4-mapped IPv6 too), IPv6 by its /64, since one
 * host is handed a whole /64 and could otherwise rotate through it.
 */
export function addressKey(remote: string | undefined): string {
  if (!remote) return 'unknown';
  try {
    const addr = ipaddr.process(remote);
    if (addr.kind() === 'ipv4') return addr.toString();
    const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
    return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    return remote;
  }
}
