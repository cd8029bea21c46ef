import type { Static } from '@sinclair/typebox';
import type { MeetingEventRow } from '../../db/queries/meetings-events.ts';
import type {
  MeetingEvent as MeetingEventSchema,
  PublicMeetingEvent as PublicMeetingEventSchema,
} from '../../schemas/meetings.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';
import { slotIncrement } from './slots.ts';

/** The MeetingEvent shape of the API: a bookable meeting type and its public slug (unset fields left out). */
export function presentMeetingEvent(e: MeetingEventRow) {
  return omitNullsAs<Static<typeof MeetingEventSchema>>({
    id: e.id,
    name: e.name,
    description: e.description,
    slug: e.slug,
    durations: e.durations,
    slotIncrement: slotIncrement(e),
    timezone: e.timezone,
    availability: e.availability,
    bufferMinutes: e.buffer_minutes,
    minimumNoticeMinutes: e.min_notice_minutes,
    bookingHorizonDays: e.horizon_days,
    hosts: e.hosts,
    active: e.active,
    reminder: e.reminder_minutes === null ? null : { minutesBefore: e.reminder_minutes, sms: e.reminder_sms },
    created: stamp(e.created_at, e.created_by),
    updated: stamp(e.updated_at, e.updated_by),
  });
}

/** A meeting event type as the API shows it. */
export type MeetingEvent = ReturnType<typeof presentMeetingEvent>;

/**
 * What the public booking page may show: no ids, emails or mobiles of the hosts, no audit stamps.
 */
export function presentPublicMeetingEvent(e: MeetingEventRow) {
  return omitNullsAs<Static<typeof PublicMeetingEventSchema>>({
    slug: e.slug,
    name: e.name,
    description: e.description,
    durations: e.durations,
    slotIncrement: slotIncrement(e),
    timezone: e.timezone,
    availability: e.availability,
    minimumNoticeMinutes: e.min_notice_minutes,
    bookingHorizonDays: e.horizon_days,
    hosts: e.hosts.map((h) => omitNulls({ firstName: h.firstName ?? null, lastName: h.lastName ?? null })),
  });
}

/** A meeting event type as the public booking page shows it. */
export type PublicMeetingEvent = ReturnType<typeof presentPublicMeetingEvent>;
