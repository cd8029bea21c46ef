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
 * IPv6 forms that carry an IPv4 address are judged by it or refused outright (see ipv6Verdict).
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (net.isIPv6(bare)) return ipv6Verdict(bare);
  if (!net.isIPv4(bare)) return false;
  try {
    return ipaddr.IPv4.parse(bare).range() === 'unicast';
  } catch {
    return false;
  }
}

/**
 * IPv6 addresses that embed an IPv4 one, each of which a stack or a translator may turn into a
 * connection to that IPv4 address:
 * - `::/96` (IPv4-compatible, deprecated; also `::` and `::1`) and `::ffff:0:0:0/96` (SIIT
 *   translated), `64:ff9b:1::/48` (local-use NAT64), `2002::/16` (6to4) and `2001::/32` (Teredo):
 *   refused whatever they carry (none is a destination a webhook needs);
 * - `::ffff:0:0/96` (IPv4-mapped) and `64:ff9b::/96` (the well-known NAT64 prefix): judged by the
 *   IPv4 address in their last 32 bits;
 * - ISATAP interface ids (`…:0:5efe:a.b.c.d`, `…:200:5efe:a.b.c.d`): refused when the IPv4 part
 *   is not public.
 * The text is first put in canonical form by the WHATWG URL parser, because ipaddr.js reads
 * `::127.0.0.1` as IPv4-mapped while a socket connects to `::7f00:1`.
 */
function ipv6Verdict(address: string): boolean {
  let parts: number[];
  try {
    const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
    parts = ipaddr.IPv6.parse(canonical).parts;
  } catch {
    return false;
  }
  const v4 = () => [parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff].join('.');
  const zero = (from: number, to: number) => parts.slice(from, to).every((p) => p === 0);
  if (zero(0, 6)) return false;
  if (zero(0, 5) && parts[5] === 0xffff) return isPublicAddress(v4());
  if (zero(0, 4) && parts[4] === 0xffff && parts[5] === 0) return false;
  if (parts[0] === 0x64 && parts[1] === 0xff9b) {
    return zero(2, 6) ? isPublicAddress(v4()) : false;
  }
  if (parts[0] === 0x2002) return false;
  if (parts[0] === 0x2001 && parts[1] === 0) return false;
  if ((parts[4] & 0xfdff) === 0 && parts[5] === 0x5efe && !isPublicAddress(v4())) return false;
  return new ipaddr.IPv6(parts).range() === 'unicast';
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
