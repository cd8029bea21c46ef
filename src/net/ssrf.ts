import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** A destination refused by the SSRF guard (private, loopback, link-local, multicast, metadata…). */
export class BlockedDestinationError extends Error {
  readonly code = 'ERR_BLOCKED_DESTINATION';
}

/**
 * Whether an IP address is a public unicast one. Everything else (loopback, RFC 1918, link-local
 * such as the 169.254.169.254 metadata service, carrier-grade NAT such as 100.100.100.200,
 * unique-local such as fd00:ec2::254, multicast, broadcast, reserved, unspecified) is refused.
 * IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
    const range = v6.range();
    if (range === 'rfc6052' || range === '6to4' || range === 'teredo' || range === 'rfc6145') return false;
    return range === 'unicast';
  }
  return parsed.range() === 'unicast';
}

function blocked(host: string, address: string) {
  return new BlockedDestinationError(`destination ${host} resolves to a non-public address (${address})`);
}

/**
 * A `lookup` for http(s).Agent: resolves like dns.lookup, then refuses any answer that is not a
 * public address. Because the agent connects to exactly the address this answers, a DNS name that
 * re-resolves to a private address after the subscription was checked is still refused.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivate) {
        const bad = list.find((a) => !isPublicAddress(a.address));
        if (bad) return callback(blocked(hostname, bad.address));
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

/** The host of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Checks an IP-literal host before connecting (a literal never goes through `lookup`).
 * Throws BlockedDestinationError when refused.
 */
export function assertLiteralAllowed(url: URL, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const host = bareHost(url);
  if (net.isIP(host) && !isPublicAddress(host)) throw blocked(host, host);
}

/**
 * Checks a destination at subscription time: an IP literal must be public, a DNS name must
 * resolve and every address it resolves to must be public. Throws BlockedDestinationError.
 */
export async function assertDestinationAllowed(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = bareHost(url);
  if (net.isIP(host)) return assertLiteralAllowed(url, false);
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true });
  } catch {
    throw new BlockedDestinationError(`destination host ${host} does not resolve`);
  }
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  if (bad || addresses.length === 0) throw blocked(host, bad?.address ?? 'none');
}
