import { addDays, localDate, offsetMinutes, wallToInstant } from '../util/zoned-time.ts';

/**
 * Quiet hours (TCPA, 47 CFR 64.1200(c)(1)): no marketing text before 8:00 or after 21:00 in the
 * recipient's local time. Sparrow applies them to campaign sends in the account's time zone.
 */
export const QUIET_FROM_MINUTE = 21 * 60;
export const QUIET_UNTIL_MINUTE = 8 * 60;

/**
 * When a marketing send may go out: null when `now` is outside quiet hours in the zone, else the
 * next 8:00 there (today's when it is before 8:00, tomorrow's when it is 21:00 or later).
 */
export function quietHoursEnd(timeZone: string, now: number = Date.now()): Date | null {
  const minute = Math.floor(
    ((((now + offsetMinutes(timeZone, now) * 60_000) % 86_400_000) + 86_400_000) % 86_400_000) / 60_000,
  );
  if (minute >= QUIET_UNTIL_MINUTE && minute < QUIET_FROM_MINUTE) return null;
  const today = localDate(timeZone, now);
  const day = minute >= QUIET_FROM_MINUTE ? addDays(today, 1) : today;
  return new Date(wallToInstant(timeZone, day, QUIET_UNTIL_MINUTE));
}
