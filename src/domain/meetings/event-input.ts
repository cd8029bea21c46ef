import type {
  Availability,
  MeetingEventFields,
  MeetingPerson,
  TimeOfDay,
} from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';
import { newId } from '../../util/ids.ts';
import { isTimeZone } from '../../util/zoned-time.ts';

/** A host or attendee as a request gives it (mobile: E.164 string or {number, country}). */
export interface PersonInput {
  id?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  mobile?: string | { number: string; country?: string };
}

/** The fields of a meeting event type a create or update request may carry. */
export interface MeetingEventInput {
  name?: string;
  description?: string | null;
  slug?: string;
  durations?: number[];
  slotIncrement?: number | null;
  timezone?: string;
  availability?: Availability;
  bufferMinutes?: number;
  minimumNoticeMinutes?: number;
  bookingHorizonDays?: number;
  hosts?: PersonInput[];
  active?: boolean;
  reminder?: { minutesBefore: number; sms?: boolean } | null;
}

const SLUG = /^[a-z0-9-]{3,64}$/;

/** Whether a string can be a booking slug: lowercase a-z, 0-9 and '-', 3..64 characters. */
export function isSlug(s: string): boolean {
  return SLUG.test(s);
}

const minutes = (t: TimeOfDay) => t.hour * 60 + t.minute;

/** Checks each range is a time of day (24:00 only as an end) and ends after it starts. */
function checkAvailability(a: Availability): void {
  // Only the weekdays: the schema leaves other keys in place, with any value.
  for (const day of ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const) {
    for (const r of a[day] ?? []) {
      if (minutes(r.start) >= 1440 || minutes(r.end) > 1440) {
        fail('MEET-004', `Availability on ${day}: times run from 00:00 to 24:00.`);
      }
      if (minutes(r.end) <= minutes(r.start)) {
        fail('MEET-004', `Availability on ${day}: each range must end after it starts.`);
      }
    }
  }
}

/** A person with an id and its mobile parsed to E.164 (an invalid mobile is CONT-001). */
export function normalisePerson(p: PersonInput, what: string): MeetingPerson {
  const out: MeetingPerson = { id: p.id ?? newId() };
  if (p.email !== undefined) out.email = p.email;
  if (p.firstName !== undefined) out.firstName = p.firstName;
  if (p.lastName !== undefined) out.lastName = p.lastName;
  if (p.mobile !== undefined) {
    const raw = typeof p.mobile === 'string' ? { number: p.mobile } : p.mobile;
    const parsed = parseMobile(raw.number, raw.country);
    if (!parsed) fail('CONT-001', `Invalid mobile number for ${what} ${p.email ?? p.firstName ?? out.id}.`);
    out.mobile = parsed.number;
  }
  return out;
}

/**
 * Validates a request's event fields and maps them to stored fields. Errors: MEET-004 (slug
 * shape, time zone, availability, durations), CONT-001 (a host's mobile).
 */
export function meetingEventFields(input: MeetingEventInput): MeetingEventFields {
  const f: MeetingEventFields = {};
  if (input.name !== undefined) f.name = input.name;
  if (input.description !== undefined) f.description = input.description;
  if (input.slug !== undefined) {
    if (!isSlug(input.slug)) {
      fail('MEET-004', 'The slug must be 3 to 64 characters of lowercase letters, digits and "-".');
    }
    f.slug = input.slug;
  }
  if (input.durations !== undefined) {
    const unique = [...new Set(input.durations)].sort((a, b) => a - b);
    if (unique.length === 0) fail('MEET-004', 'Give at least one allowed duration.');
    f.durations = unique;
  }
  if (input.slotIncrement !== undefined) f.slotIncrement = input.slotIncrement;
  if (input.timezone !== undefined) {
    if (!isTimeZone(input.timezone)) {
      fail('MEET-004', `Unknown time zone "${input.timezone}": use an IANA name such as America/New_York.`);
    }
    f.timezone = input.timezone;
  }
  if (input.availability !== undefined) {
    checkAvailability(input.availability);
    f.availability = input.availability;
  }
  if (input.bufferMinutes !== undefined) f.bufferMinutes = input.bufferMinutes;
  if (input.minimumNoticeMinutes !== undefined) f.minNoticeMinutes = input.minimumNoticeMinutes;
  if (input.bookingHorizonDays !== undefined) f.horizonDays = input.bookingHorizonDays;
  if (input.hosts !== undefined) f.hosts = input.hosts.map((h) => normalisePerson(h, 'host'));
  if (input.active !== undefined) f.active = input.active;
  if (input.reminder !== undefined) {
    f.reminderMinutes = input.reminder?.minutesBefore ?? null;
    if (input.reminder) f.reminderSms = input.reminder.sms ?? true;
  }
  return f;
}
