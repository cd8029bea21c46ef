import type { AppContext } from '../../../context.ts';
import { grantDaily } from '../../../db/queries/daily-caps.ts';

/** A number's share of a claim, as the daily caps see it. */
export interface CapWant {
  accountId: string;
  phoneNumberId: string;
  /** Under a daily cap, its own or a group's (daily_capped). */
  capped: boolean;
}

/** The grants of a claim once the daily caps have had their say. */
export interface CappedGrants {
  /** Sends each number may make now: its rate grant, within its daily caps when it has any. */
  granted: Map<string, number>;
  /**
   * Numbers whose daily cap (theirs or a group's) is used up today, with that day (the account's):
   * their other messages of the claim are held for the next day instead of waiting for a second.
   */
  exhausted: Map<string, string>;
}

/**
 * Daily caps (migration 0420) after the rate windows: each capped number that got rate slots asks
 * its counters for as many (sparrow_grant_daily, on the pool in a statement of its own, as
 * grantSends), so a day's count is never spent on slots the second did not grant. A number whose
 * cap runs out keeps what it was granted and is named in `exhausted`. Numbers without a cap keep
 * their rate grant and cost nothing more.
 */
export async function applyDailyCaps(
  ctx: AppContext,
  rate: Map<string, number>,
  wants: CapWant[],
): Promise<CappedGrants> {
  const granted = new Map(rate);
  const exhausted = new Map<string, string>();
  const ask = wants
    .filter((w) => w.capped && (rate.get(w.phoneNumberId) ?? 0) > 0)
    .map((w) => ({
      accountId: w.accountId,
      phoneNumberId: w.phoneNumberId,
      wanted: rate.get(w.phoneNumberId) as number,
    }));
  if (ask.length === 0) return { granted, exhausted };
  for (const [id, g] of await grantDaily(ctx.db, ask)) {
    granted.set(id, g.granted);
    if (g.exhausted) exhausted.set(id, g.day);
  }
  return { granted, exhausted };
}
