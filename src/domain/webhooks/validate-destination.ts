import { fail } from '../../errors.ts';
import { assertDestinationAllowed, BlockedDestinationError } from '../../net/ssrf.ts';

/** Longest destination URL accepted. */
export const MAX_URL_LENGTH = 2048;

/**
 * Checks a subscription's destination: an absolute http(s) URL without credentials (else 400
 * VAL-001), and, unless private destinations are allowed, one that is and resolves to public
 * addresses only (else 400 HOOK-002). Answers the URL as given, trimmed.
 */
export async function validateDestination(raw: string, allowPrivate: boolean): Promise<string> {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('VAL-001', 'url must be an absolute http(s) URL.');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    fail('VAL-001', 'url must be an absolute http(s) URL.');
  }
  if (url.username || url.password) fail('VAL-001', 'url must not carry credentials.');
  if (value.length > MAX_URL_LENGTH) fail('VAL-001', `url must be at most ${MAX_URL_LENGTH} characters.`);
  try {
    await assertDestinationAllowed(url, allowPrivate);
  } catch (err) {
    if (err instanceof BlockedDestinationError)
      fail('HOOK-002', `The webhook destination is not allowed: ${err.message}.`);
    throw err;
  }
  return value;
}

/** The spellings under which a destination may have been stored (as given, and normalised). */
export function destinationSpellings(raw: string): string[] {
  const out = new Set([raw, raw.trim()]);
  try {
    out.add(new URL(raw.trim()).toString());
  } catch {
    // not a URL: only the literal spelling can match
  }
  return [...out];
}
