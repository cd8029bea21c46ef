import type { Db } from '../../db/client.ts';
import { findBillingProfile } from '../../db/queries/billing.ts';
import { saveAutoTopup } from '../../db/queries/billing-topups.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { getAutoTopup } from './get-auto-topup.ts';
import type { AutoTopup } from './present-billing.ts';

/** The body of PUT …/autotopup. */
export interface AutoTopupInput {
  /** Top up when the balance falls below this. */
  threshold: number;
  /** What one top-up charges and credits. */
  amount: number;
  /** At most this many top-ups per calendar month (UTC); default 5. */
  maxPerMonth?: number;
}

/** Default monthly maximum of top-ups. */
export const DEFAULT_MAX_PER_MONTH = 5;

const cents = (n: number) => Math.round(n * 100) / 100;

/**
 * Enables auto top-up (or changes its settings, re-arming it): when the balance falls below
 * `threshold`, the auto-top-up worker charges `amount` to the payment method the last completed
 * checkout saved and credits it. Without a saved payment method → 409 BILL-002.
 */
export async function setAutoTopup(
  db: Db,
  accountId: string,
  input: AutoTopupInput,
  by: Actor,
): Promise<AutoTopup> {
  const profile = await findBillingProfile(db, accountId);
  if (!profile?.payment_method_id) fail('BILL-002');
  await saveAutoTopup(db, accountId, {
    threshold: cents(input.threshold),
    amount: cents(input.amount),
    maxPerMonth: input.maxPerMonth ?? DEFAULT_MAX_PER_MONTH,
    by,
  });
  return getAutoTopup(db, accountId);
}
