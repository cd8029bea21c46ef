import { randomBytes } from 'node:crypto';
import { fail } from '../../errors.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Characters of a link's slug: 62^10 ≈ 2^59.5 values, so slugs cannot be guessed or enumerated. */
export const SLUG_LENGTH = 10;
/** Characters of a source key (the suffix that attributes a click; scoped to one link). */
export const KEY_LENGTH = 6;

/** A uniformly random base62 string from the system CSPRNG. */
export function randomKey(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it are dropped so that every character is equally likely.
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

/** Whether text can be a slug at all (anything else is a 404 without a query). */
export function isSlug(text: string): boolean {
  return text.length === SLUG_LENGTH && /^[A-Za-z0-9]+$/.test(text);
}

/** Whether text can be a source key. */
export function isSourceKey(text: string): boolean {
  return text.length === KEY_LENGTH && /^[A-Za-z0-9]+$/.test(text);
}

/**
 * The target of a link, normalised (as `new URL().href`: percent-encoded, safe in a Location
 * header): absolute http or https, with a host, without credentials, at most 2048 characters.
 * LINK-003 otherwise.
 */
export function checkLinkUrl(input: string): string {
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    fail('LINK-003');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) fail('LINK-003');
  if (u.username || u.password) fail('LINK-003', 'The URL must not carry a user name or password.');
  if (u.href.length > 2048) fail('LINK-003', 'The URL is longer than 2048 characters.');
  return u.href;
}
