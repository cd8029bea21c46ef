import type { Static } from '@sinclair/typebox';
import type { MeetingRow } from '../../db/queries/meetings.ts';
import type { Meeting as MeetingSchema } from '../../schemas/meetings.ts';
import { omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** The status as shown: an upcoming meeting whose end has passed is completed (the worker catches up). */
function statusOf(m: MeetingRow): MeetingRow['status'] {
  return m.status === 'upcoming' && new Date(m.end_at) <= new Date() ? 'completed' : m.status;
}

/**
 * The Meeting shape of the API (plus eventId, timezone, notes, cancelled and audit stamps); an unset
 * field is left out, never null.
 */
export function presentMeeting(m: MeetingRow) {
  return omitNullsAs<Static<typeof MeetingSchema>>({
    id: m.id,
    name: m.name,
    description: m.description,
    start: new Date(m.start_at).toISOString(),
    end: new Date(m.end_at).toISOString(),
    status: statusOf(m),
    hosts: m.hosts,
    attendees: m.attendees,
    eventId: m.event_id,
    timezone: m.timezone,
    notes: m.notes,
    cancelled: m.cancelled_at ? new Date(m.cancelled_at).toISOString() : null,
    created: stamp(m.created_at, m.created_by),
    updated: stamp(m.updated_at, m.updated_by),
  });
}

/** A meeting as the API shows it. */
export type Meeting = ReturnType<typeof presentMeeting>;
