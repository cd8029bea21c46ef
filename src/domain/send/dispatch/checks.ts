import type { AppContext } from '../../../context.ts';
import { OPTED_OUT_ERROR } from '../../../db/queries/messages.ts';
import { ERRORS } from '../../../errors.ts';
import { EXPIRED_ERROR } from '../../../messaging/validity.ts';
import type { ProviderName } from '../../../providers/types.ts';

const NUMBER_GONE = { code: 'NUM-001', description: 'The sending phone number is no longer active.' };
const NO_PROVIDER = { code: 'MSG-011', description: ERRORS['MSG-011'].message };
const NOT_VERIFIED = { code: 'NUM-010', description: ERRORS['NUM-010'].message };

/** What a claim knows of a message before it may go to its provider. */
export interface DispatchCheck {
  system: boolean;
  stopped: boolean;
  /** Its validity period ended before it could go (docs/encoding.md). */
  expired?: boolean;
  phone_number_id: string | null;
  number_active: boolean;
  /** The number's provider confirmed it is the account's (see domain/numbers/verify-with-provider.ts). */
  number_verified: boolean;
  provider: string | null;
  throughput_mps: number | null;
}

/** Why a message from this number cannot go (the number is gone or unverified, its provider is not configured), or null. */
export function numberBlocker(
  ctx: AppContext,
  c: Omit<DispatchCheck, 'system' | 'stopped' | 'expired'>,
): { code: string; description: string } | null {
  if (!c.phone_number_id || !c.number_active || !c.provider || !c.throughput_mps) return NUMBER_GONE;
  if (!c.number_verified) return NOT_VERIFIED;
  if (!ctx.providers.get(c.provider as ProviderName)) return NO_PROVIDER;
  return null;
}

/**
 * Why a claimed message must fail instead of being sent (its contact opted out or was blocked
 * after it was queued, its validity period ended, its number is gone, its provider is not configured), or null.
 */
export function dispatchBlocker(
  ctx: AppContext,
  c: DispatchCheck,
): { code: string; description: string } | null {
  if (!c.system && c.stopped) return OPTED_OUT_ERROR;
  if (c.expired) return EXPIRED_ERROR;
  return numberBlocker(ctx, c);
}
