/**
 * Wall-clock time in IANA time zones without a date library: the runtime's Intl data answers the
 * UTC offset of a zone at an instant, and wall times are turned into instants from that.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** Whether the runtime knows this IANA time zone name. */
export function isTimeZone(timeZone: string): boolean {
  try {
    format(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** A calendar date. */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** The wall-clock reading of an instant in a zone, as if it were UTC (ms). */
function wallAsUtc(timeZone: string, ms: number): number {
  const p: Record<string, number> = {};
  for (const part of format(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The zone's UTC offset at an instant, in minutes (New York in winter: -300). */
export function offsetMinutes(timeZone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return Math.round((wallAsUtc(timeZone, whole) - whole) / MINUTE);
}

/** The local calendar date of an instant in a zone. */
export function localDate(timeZone: string, ms: number): LocalDate {
  const d = new Date(wallAsUtc(timeZone, ms));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The date `days` after d (negative: before). */
export function addDays(d: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day) + days * DAY);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** Day of the week of a date: 0 Sunday … 6 Saturday. */
export function weekday(d: LocalDate): number {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
}

/**
 * The instant at which the zone's clocks read `minuteOfDay` (0..1440) on date d. Like Temporal's
 * "compatible" disambiguation: a time repeated when clocks go back is its first occurrence; a time
 * skipped when clocks go forward is moved forward by the gap (02:30 on a spring-forward night in
 * New York is 03:30 EDT).
 */
export function wallToInstant(timeZone: string, d: LocalDate, minuteOfDay: number): number {
  const wall = Date.UTC(d.year, d.month - 1, d.day) + minuteOfDay * MINUTE;
  const before = offsetMinutes(timeZone, wall - DAY);
  const after = offsetMinutes(timeZone, wall + DAY);
  const valid = [...new Set([before, after])]
    .map((o) => wall - o * MINUTE)
    .filter((t) => wallAsUtc(timeZone, t) === wall);
  if (valid.length > 0) return Math.min(...valid);
  return wall - before * MINUTE;
}

/** A readable local time for texts, e.g. "Mon, Mar 9, 2026, 9:00 AM EDT". */
export function formatLocal(timeZone: string, ms: number): string {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(ms));
}
