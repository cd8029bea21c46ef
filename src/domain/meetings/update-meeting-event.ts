import type { Queryable } from '../../db/client.ts';
import { updateMeetingEvent as updateRow } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type MeetingEventInput, meetingEventFields } from './event-input.ts';
import { type MeetingEvent, presentMeetingEvent } from './present-meeting-event.ts';

const UNIQUE_VIOLATION = '23505';

/**
 * Updates the given fields of a meeting event type. Meetings already booked keep their times,
 * hosts and buffer. Errors: MEET-001 unknown, MEET-003 slug taken, MEET-004 invalid fields.
 */
export async function updateMeetingEvent(
  db: Queryable,
  accountId: string,
  id: string,
  input: MeetingEventInput,
  by: Actor,
): Promise<MeetingEvent> {
  if (!isId(id)) fail('MEET-001');
  const fields = meetingEventFields(input);
  try {
    return presentMeetingEvent((await updateRow(db, accountId, id, fields, by)) ?? fail('MEET-001'));
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
      fail('MEET-003', `The slug "${input.slug}" is taken.`);
    }
    throw err;
  }
}
