import type { Queryable } from '../../db/client.ts';
import { type AnonymousTextKind, takeAnonymousTexts } from '../../db/queries/anonymous-text-quotas.ts';

const HOUR_MS = 3_600_000;

/** An hourly cap on the texts anonymous visitors can make an account pay for, per form or event type. */
export interface AnonymousTextCap {
  kind: AnonymousTextKind;
  /** The form's or the meeting event type's id. */
  ownerId: string;
  /** Texts a clock hour (FORM_CONFIRMATIONS_PER_HOUR, BOOKING_TEXTS_PER_HOUR); 0 sends none. */
  perHour: number;
}

/**
 * Takes `count` texts from the cap's budget for the current clock hour, in the caller's transaction;
 * answers false (and takes nothing) when they would exceed it. A stranger can post a form or book a
 * meeting as often as the rate limits allow; this bounds what that can cost the account.
 */
export function takeAnonymousTextBudget(
  tx: Queryable,
  accountId: string,
  cap: AnonymousTextCap,
  count: number,
  now: Date = new Date(),
): Promise<boolean> {
  const windowStart = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
  return takeAnonymousTexts(tx, accountId, { ...cap, windowStart, count, cap: cap.perHour });
}
