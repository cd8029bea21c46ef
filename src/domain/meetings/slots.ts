import type { MeetingEventRow, Weekday } from '../../db/queries/meetings-events.ts';
import { addDays, localDate, wallToInstant, weekday } from '../../util/zoned-time.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
const WEEKDAYS: Weekday[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** A bookable interval: [start, end) in ms since the epoch. */
export interface Slot {
  start: number;
  end: number;
}

/** A live meeting's blocked interval [start, blockedUntil) (its end plus its buffer). */
export interface Busy {
  start: number;
  blockedUntil: number;
}

/** The step between candidate start times: the event's increment, else its shortest duration. */
export function slotIncrement(event: Pick<MeetingEventRow, 'slot_increment' | 'durations'>): number {
  return event.slot_increment ?? Math.min(...event.durations);
}

/** The earliest and latest start times the event's notice and horizon allow at `now`. */
export function bookingWindow(
  event: Pick<MeetingEventRow, 'min_notice_minutes' | 'horizon_days'>,
  now: number,
): { earliest: number; latest: number } {
  return {
    earliest: now + event.min_notice_minutes * MINUTE,
    latest: now + event.horizon_days * DAY,
  };
}

/**
 * Candidate start times in [from, to) for a meeting of `duration` minutes: within each weekly
 * availability range of each local day (in the event's time zone), from the range's start in
 * steps of the slot increment, while the meeting ends by the range's end. Ranges are turned into
 * instants per day, so a slot at 09:00 is 09:00 local on both sides of a DST change, and a range
 * spanning the change is as long as the clocks make it (an hour shorter or longer).
 */
export function candidateSlots(
  event: Pick<MeetingEventRow, 'availability' | 'timezone' | 'slot_increment' | 'durations'>,
  duration: number,
  from: number,
  to: number,
): Slot[] {
  const tz = event.timezone;
  const step = slotIncrement(event) * MINUTE;
  const length = duration * MINUTE;
  const starts = new Set<number>();
  // One day either side: a range of the local day before `from` can reach past it in UTC.
  const last = addDays(localDate(tz, to), 1);
  for (let d = addDays(localDate(tz, from), -1); ; d = addDays(d, 1)) {
    for (const range of event.availability[WEEKDAYS[weekday(d)]] ?? []) {
      const rangeStart = wallToInstant(tz, d, range.start.hour * 60 + range.start.minute);
      const rangeEnd = wallToInstant(tz, d, range.end.hour * 60 + range.end.minute);
      for (let s = rangeStart; s + length <= rangeEnd; s += step) {
        if (s >= from && s < to) starts.add(s);
      }
    }
    if (d.year === last.year && d.month === last.month && d.day === last.day) break;
  }
  return [...starts].sort((a, b) => a - b).map((start) => ({ start, end: start + length }));
}

/** Whether a meeting [slot.start, slot.end + buffer) would overlap a live meeting's blocked time. */
export function conflicts(slot: Slot, bufferMinutes: number, busy: Busy[]): boolean {
  const blockedUntil = slot.end + bufferMinutes * MINUTE;
  return busy.some((b) => slot.start < b.blockedUntil && b.start < blockedUntil);
}

/**
 * The free slots in [from, to): candidates that respect the notice and horizon at `now` and do
 * not overlap a live meeting (buffers included, as the database's overlap constraint counts them).
 */
export function freeSlots(
  event: MeetingEventRow,
  duration: number,
  range: { from: number; to: number },
  now: number,
  busy: Busy[],
): Slot[] {
  const { earliest, latest } = bookingWindow(event, now);
  const from = Math.max(range.from, earliest, now);
  const to = Math.min(range.to, latest + 1);
  if (to <= from) return [];
  return candidateSlots(event, duration, from, to).filter((s) => !conflicts(s, event.buffer_minutes, busy));
}
