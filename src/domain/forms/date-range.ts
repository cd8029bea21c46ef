import { fail } from '../../errors.ts';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The most days a per-day series covers in one answer. */
export const MAX_RANGE_DAYS = 366;

/** A UTC calendar date (YYYY-MM-DD) of an instant. */
export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Parses an ISO date (YYYY-MM-DD) or date-time; VAL-001 naming `param` when it is neither. */
export function parseInstant(value: string, param: string): { at: Date; dateOnly: boolean } {
  const dateOnly = DATE.test(value);
  const at = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(at.getTime()) || (dateOnly && utcDate(at) !== value)) {
    fail('VAL-001', `${param} must be an ISO 8601 date (YYYY-MM-DD) or date-time.`);
  }
  return { at, dateOnly };
}

/**
 * The instants [from, to) a `start` / `end` query selects: a date-only `end` covers its whole day
 * (UTC), a date-time `end` is included. start after end → VAL-001.
 */
export function instantRange(start?: string, end?: string): { from?: Date; to?: Date } {
  const from = start === undefined ? undefined : parseInstant(start, 'start').at;
  let to: Date | undefined;
  if (end !== undefined) {
    const e = parseInstant(end, 'end');
    to = new Date(e.at.getTime() + (e.dateOnly ? DAY_MS : 1));
  }
  if (from && to && from >= to) fail('VAL-001', 'start must not be after end.');
  return { from, to };
}

/**
 * The UTC days [start, end] of a per-day series: each given as a date (a date-time counts as its
 * day); end defaults to today, start to `defaultStart` (clamped to MAX_RANGE_DAYS before end).
 * start after end, or a range longer than MAX_RANGE_DAYS → VAL-001.
 */
export function dayRange(start: string | undefined, end: string | undefined, defaultStart: Date) {
  const endDay = end === undefined ? utcDate(new Date()) : utcDate(parseInstant(end, 'end').at);
  const endMs = Date.parse(`${endDay}T00:00:00Z`);
  let startDay: string;
  if (start !== undefined) startDay = utcDate(parseInstant(start, 'start').at);
  else {
    const earliest = endMs - (MAX_RANGE_DAYS - 1) * DAY_MS;
    startDay = utcDate(new Date(Math.min(endMs, Math.max(earliest, defaultStart.getTime()))));
  }
  const days = (endMs - Date.parse(`${startDay}T00:00:00Z`)) / DAY_MS + 1;
  if (days < 1) fail('VAL-001', 'start must not be after end.');
  if (days > MAX_RANGE_DAYS) fail('VAL-001', `The range covers at most ${MAX_RANGE_DAYS} days.`);
  return { start: startDay, end: endDay, days };
}
