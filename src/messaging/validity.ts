/**
 * Validity periods (docs/encoding.md): how long a message may wait to be dispatched. A message
 * still undispatched when its validity ends fails as expired (MSG-012) and is refunded; on
 * submission the provider is handed what is left of it (SMPP `validity_period`, Twilio
 * `ValidityPeriod`), so that the carrier does not keep trying after the sender stopped caring.
 */

import { ERRORS } from '../errors.ts';

/** The shortest validity a send or an account may ask for, in seconds. */
export const MIN_VALIDITY_SECONDS = 1;
/** The longest: 7 days (carriers keep undelivered texts for a few days at most). */
export const MAX_VALIDITY_SECONDS = 604_800;

/** The error an expired message records (its `error`). */
export const EXPIRED_ERROR = { code: 'MSG-012', description: ERRORS['MSG-012'].message };

/**
 * The validity a send gets: its own `validityPeriod`, else the account's default, else none.
 * Answers seconds or undefined.
 */
export function effectiveValidity(
  own: number | undefined,
  accountDefault: number | null,
): number | undefined {
  return own ?? accountDefault ?? undefined;
}

/**
 * Whole seconds left before `expiresAt` (at least 1: a message about to expire still goes with
 * the shortest validity), or undefined without an expiry.
 */
export function remainingValidity(expiresAt: Date | null | undefined, now = Date.now()): number | undefined {
  if (!expiresAt) return undefined;
  return Math.max(1, Math.ceil((expiresAt.getTime() - now) / 1000));
}
