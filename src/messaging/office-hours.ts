import { localDate, offsetMinutes, weekday } from '../util/zoned-time.ts';

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

interface TimeOfDay {
  hour: number;
  minute: number;
}

/** A group's office hours as stored (the Group shape's `officeHours`). */
export interface StoredOfficeHours {
  active?: boolean;
  timezone?: string;
  times?: Partial<Record<(typeof DAYS)[number], { start: TimeOfDay; end: TimeOfDay }[]>>;
}

/**
 * Whether an instant falls within office hours, read in their time zone: on the local weekday, some
 * range holds the local time (start inclusive, end exclusive; a day without ranges is closed all
 * day). Answers undefined when the hours are not kept (none, `active: false`, or a zone the
 * runtime does not know): "outside office hours" then never holds.
 */
export function withinOfficeHours(
  hours: StoredOfficeHours | null | undefined,
  ms: number,
): boolean | undefined {
  if (hours?.active !== true || typeof hours.timezone !== 'string') return undefined;
  let minute: number;
  let day: (typeof DAYS)[number];
  try {
    const wall = ms + offsetMinutes(hours.timezone, ms) * 60_000;
    minute = Math.floor((((wall % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
    day = DAYS[weekday(localDate(hours.timezone, ms))];
  } catch {
    return undefined;
  }
  const ranges = hours.times?.[day] ?? [];
  return ranges.some((r) => {
    const start = r.start.hour * 60 + r.start.minute;
    const end = r.end.hour * 60 + r.end.minute;
    return minute >= start && minute < end;
  });
}
