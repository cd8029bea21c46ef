import net from 'node:net';
import { fail } from '../errors.ts';
import { isPublicAddress } from '../net/ssrf.ts';

/** Longest media URL accepted. */
export const MAX_MEDIA_URL_LENGTH = 2048;

/**
 * Whether `url` is one of the service's own hosted files, under `{externalsUrl}/files/` (POST
 * /v1/tools/sharefile): those are accepted even when EXTERNALS_URL is a loopback or private address,
 * as in development, since they were checked when uploaded; no other path of that origin is let through.
 */
function isOwnFile(url: URL, externalsUrl: string | null): boolean {
  if (externalsUrl === null) return false;
  const base = new URL(`${externalsUrl.replace(/\/$/, '')}/files/`);
  return url.origin === base.origin && url.pathname.startsWith(base.pathname);
}

/**
 * Why a media URL is refused, or null: it must be an absolute http(s) URL without credentials, and
 * its host must not name a private place (an IP literal that is not public, or `localhost`) — the
 * SSRF guard's syntactic checks (net/ssrf.ts). Carriers fetch media, Sparrow does not, so no DNS
 * lookup is made. `externalsUrl` is the service's EXTERNALS_URL: its own files there are accepted
 * (null: none are, as for the built-in workflow templates).
 */
export function mediaUrlProblem(raw: string, externalsUrl: string | null): string | null {
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
  if (isOwnFile(url, externalsUrl)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIP(host) && !isPublicAddress(host)) return 'names a private address';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'names a private address';
  return null;
}

/**
 * Checks every media URL of a send (400 MSG-009 naming the item); `externalsUrl` is the service's
 * EXTERNALS_URL (its own files are accepted), `where` the field, e.g. `media`.
 */
export function checkMediaUrls(
  media: { url: string }[] | undefined,
  externalsUrl: string,
  where = 'media',
): void {
  for (const [i, m] of (media ?? []).entries()) {
    const problem = mediaUrlProblem(m.url, externalsUrl);
    if (problem)
      fail('MSG-009', `\`${where}[${i}].url\` ${problem}: give an absolute http(s) URL on a public host.`);
  }
}
