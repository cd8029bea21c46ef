import type { Queryable } from '../../db/client.ts';
import { findBillingProfile } from '../../db/queries/billing.ts';
import { findAutoTopup, recentTopups, topupsThisMonth } from '../../db/queries/billing-topups.ts';
import { type AutoTopup, presentAutoTopup } from './present-billing.ts';

/** How many recent top-ups the settings show. */
const RECENT = 5;

/** The account's auto top-up settings (disabled with null settings when never set), payment method and recent top-ups. */
export async function getAutoTopup(db: Queryable, accountId: string): Promise<AutoTopup> {
  const [settings, profile, thisMonth, recent] = await Promise.all([
    findAutoTopup(db, accountId),
    findBillingProfile(db, accountId),
    topupsThisMonth(db, accountId),
    recentTopups(db, accountId, RECENT),
  ]);
  return presentAutoTopup(settings, profile, { thisMonth, recent });
}
