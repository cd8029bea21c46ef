import { type Db, withTx } from '../../db/client.ts';
import { busyMeetings, insertMeeting } from '../../db/queries/meetings.ts';
import { findActiveMeetingEventBySlug, type MeetingPerson } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { findOrCreateContactByMobile } from '../contacts/find-or-create-by-mobile.ts';
import { takeAnonymousTextBudget } from '../messages/anonymous-text-budget.ts';
import type { PersonInput } from './event-input.ts';
import { isSlug } from './event-input.ts';
import { type Meeting, presentMeeting } from './present-meeting.ts';
import { bookingWindow, candidateSlots, conflicts } from './slots.ts';
import { accountName, meetingWhen, textAttendees } from './text-attendees.ts';

const MINUTE = 60_000;
const EXCLUSION_VIOLATION = '23P01';
/**
 * Two bookings inserting overlapping meetings at the same instant can each wait for the other in
 * the exclusion check; PostgreSQL then aborts one of them (40P01) and the other commits.
 */
const DEADLOCK_DETECTED = '40P01';

/** A booking request (endpoint 25). */
export interface BookingInput {
  start: string;
  duration: number;
  attendees: PersonInput[];
  notes?: string;
}

/** A booked meeting, and whether its texts were left out because the event type's hourly cap was reached. */
export interface BookedMeeting {
  meeting: Meeting;
  textsCapped: boolean;
}

/**
 * Checks a start time against the event type at `now`, in the order a booker can act on:
 * MEET-012 past, MEET-013 beyond the horizon, MEET-014 inside the minimum notice, MEET-015 not a
 * start time the availability offers for this duration.
 */
function checkStart(
  event: NonNullable<Awaited<ReturnType<typeof findActiveMeetingEventBySlug>>>,
  start: number,
  duration: number,
  now: number,
): void {
  const { earliest, latest } = bookingWindow(event, now);
  if (start < now) fail('MEET-012');
  if (start > latest) fail('MEET-013', `Meetings can be booked at most ${event.horizon_days} days ahead.`);
  if (start < earliest) {
    fail('MEET-014', `Meetings must be booked at least ${event.min_notice_minutes} minutes ahead.`);
  }
  if (!candidateSlots(event, duration, start, start + 1).some((s) => s.start === start)) fail('MEET-015');
}

/**
 * Books a meeting on the active event type with this slug (public: no token). Attendees with a
 * mobile become (or are found as) contacts of the event's account and are sent a confirmation
 * text; the meeting, the contacts, their events and the texts commit together. Of two concurrent
 * bookings of overlapping times exactly one succeeds (the database's overlap constraint), the other
 * is 409 MEET-016. The texts a booking makes the account pay for (confirmations, and reminders
 * when the event sends them) come out of the event type's hourly budget (`textsPerHour`,
 * BOOKING_TEXTS_PER_HOUR): past it the meeting is still booked, with neither. Errors: MEET-001 unknown or inactive slug, MEET-010 duration not offered,
 * MEET-011 no attendee (or one with neither email nor mobile), CONT-001 invalid mobile,
 * MEET-012..MEET-015 start time (see checkStart), MEET-016 slot taken.
 */
export async function bookMeeting(
  db: Db,
  slug: string,
  input: BookingInput,
  opts: { textsPerHour?: number; prices: PriceTable },
): Promise<BookedMeeting> {
  const event = (isSlug(slug) ? await findActiveMeetingEventBySlug(db, slug) : undefined) ?? fail('MEET-001');
  const accountId = event.account_id;
  if (!event.durations.includes(input.duration)) {
    fail('MEET-010', `Allowed durations (minutes): ${event.durations.join(', ')}.`);
  }
  if (input.attendees.length === 0) fail('MEET-011');
  const attendees = input.attendees.map((a, i) => {
    if (!a.email && a.mobile === undefined) fail('MEET-011', `Attendee ${i + 1} needs an email or a mobile.`);
    if (a.mobile === undefined) return { input: a, mobile: undefined };
    const raw = typeof a.mobile === 'string' ? { number: a.mobile } : a.mobile;
    const mobile = parseMobile(raw.number, raw.country);
    if (!mobile) fail('CONT-001', `Invalid mobile number for attendee ${i + 1}.`);
    return { input: a, mobile };
  });
  const start = Date.parse(input.start);
  if (Number.isNaN(start)) fail('VAL-001', '`start` must be an ISO 8601 date-time.');
  const now = Date.now();
  checkStart(event, start, input.duration, now);
  const end = start + input.duration * MINUTE;
  const slot = { start, end };
  const by: Actor = { id: 'meeting-booking', name: 'Meeting booking', source: 'booking', subSource: slug };

  return withTx(db, async (tx) => {
    const busy = await busyMeetings(
      tx,
      accountId,
      event.id,
      new Date(start - 1440 * MINUTE),
      new Date(end + 1440 * MINUTE),
    );
    const blocked = busy.map((b) => ({
      start: b.start_at.getTime(),
      blockedUntil: b.blocked_until.getTime(),
    }));
    if (conflicts(slot, event.buffer_minutes, blocked)) fail('MEET-016');

    const people: MeetingPerson[] = [];
    for (const { input: a, mobile } of attendees) {
      const person: MeetingPerson = { id: newId() };
      if (mobile) {
        const { contact } = await findOrCreateContactByMobile(
          tx,
          accountId,
          { ...mobile, firstName: a.firstName, lastName: a.lastName, email: a.email },
          by,
        );
        person.id = contact.id;
        person.mobile = mobile.number;
      }
      if (a.email !== undefined) person.email = a.email;
      if (a.firstName !== undefined) person.firstName = a.firstName;
      if (a.lastName !== undefined) person.lastName = a.lastName;
      people.push(person);
    }

    const reminderDue = event.reminder_minutes === null ? null : start - event.reminder_minutes * MINUTE;
    // A reminder that would be due already is not sent: the confirmation has just gone out.
    const reminderDueAt = reminderDue !== null && reminderDue > now ? new Date(reminderDue) : null;
    const textable = people.filter((p) => p.mobile !== undefined).length;
    const texts = textable * (reminderDueAt && event.reminder_sms ? 2 : 1);
    const cap = {
      kind: 'booking' as const,
      ownerId: event.id,
      perHour: opts.textsPerHour ?? Number.POSITIVE_INFINITY,
    };
    const textsCapped =
      texts > 0 &&
      Number.isFinite(cap.perHour) &&
      !(await takeAnonymousTextBudget(tx, accountId, cap, texts));
    let row: Awaited<ReturnType<typeof insertMeeting>>;
    try {
      row = await insertMeeting(tx, accountId, {
        id: newId(),
        eventId: event.id,
        name: event.name,
        description: event.description,
        timezone: event.timezone,
        notes: input.notes ?? null,
        start: new Date(start),
        end: new Date(end),
        blockedUntil: new Date(end + event.buffer_minutes * MINUTE),
        hosts: event.hosts,
        attendees: people,
        reminderDueAt,
        reminderSms: event.reminder_sms && !textsCapped,
        by,
      });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === EXCLUSION_VIOLATION || code === DEADLOCK_DETECTED) fail('MEET-016');
      throw err;
    }
    if (!textsCapped) {
      const name = await accountName(tx, accountId);
      await textAttendees(
        tx,
        accountId,
        people,
        `${name}: your meeting ${meetingWhen(event.name, event.timezone, start)} is booked.`,
        by,
        opts.prices,
      );
    }
    return { meeting: presentMeeting(row), textsCapped };
  });
}
