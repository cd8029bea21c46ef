import net from 'node:net';
import { fail } from '../errors.ts';
import { isPublicAddress } from '../net/ssrf.ts';

/** Longest media URL accepted. */
export const MAX_MEDIA_URL_LENGTH = 2048;

/** Where this service hosts files (`{EXTERNALS_URL}/files/`): origin and path prefix. */
const ownFiles: { origin: string; path: string }[] = [];

/**
 * Accepts media URLs under `{externalsUrl}/files/` (the service's own hosted files, POST
 * /v1/tools/sharefile) even when EXTERNALS_URL is a loopback or private address, as in development:
 * those files were checked when uploaded, and no other path of that origin is let through.
 */
export function trustOwnFiles(externalsUrl: string): void {
  const base = new URL(`${externalsUrl.replace(/\/$/, '')}/files/`);
  if (!ownFiles.some((o) => o.origin === base.origin && o.path === base.pathname))
    ownFiles.push({ origin: base.origin, path: base.pathname });
}

/**
 * Why a media URL is refused, or null: it must be an absolute http(s) URL without credentials, and
 * its host must not name a private place (an IP literal that is not public, or `localhost`) — the
 * SSRF guard's syntactic checks (net/ssrf.ts). Carriers fetch media, Sparrow does not, so no DNS
 * lookup is made.
 */
export function mediaUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (!url.hostname) return 'has no host';
  if (url.username || url.password) return 'must not carry credentials';
  if (raw.length > MAX_MEDIA_URL_LENGTH) return `must be at most ${MAX_MEDIA_URL_LENGTH} characters`;
  if (ownFiles.some((o) => url.origin === o.origin && url.pathname.startsWith(o.path))) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIP(host) && !isPublicAddress(host)) return 'names a private address';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'names a private address';
  return null;
}

/** Checks every media URL of a send (400 MSG-009 naming the item); `where` is the field, e.g. `media`. */
export function checkMediaUrls(media: { url: string }[] | undefined, where = 'media'): void {
  for (const [i, m] of (media ?? []).entries()) {
    const problem = mediaUrlProblem(m.url);
    if (problem)
      fail('MSG-009', `\`${where}[${i}].url\` ${problem}: give an absolute http(s) URL on a public host.`);
  }
}
