import type { Queryable } from '../../db/client.ts';
import { type Availability, insertMeetingEvent } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type MeetingEventInput, meetingEventFields } from './event-input.ts';
import { type MeetingEvent, presentMeetingEvent } from './present-meeting-event.ts';

const NINE_TO_FIVE = [{ start: { hour: 9, minute: 0 }, end: { hour: 17, minute: 0 } }];

/** Monday to Friday, 09:00–17:00: the availability of an event type created without one. */
export const DEFAULT_AVAILABILITY: Availability = {
  mon: NINE_TO_FIVE,
  tue: NINE_TO_FIVE,
  wed: NINE_TO_FIVE,
  thu: NINE_TO_FIVE,
  fri: NINE_TO_FIVE,
};

/**
 * Creates a meeting event type, bookable at its slug on the public listener while active.
 * Errors: MEET-003 slug taken (by any account), MEET-004 invalid fields, CONT-001 host mobile.
 */
export async function createMeetingEvent(
  db: Queryable,
  accountId: string,
  input: MeetingEventInput & { name: string; slug: string; durations: number[]; timezone: string },
  by: Actor,
): Promise<MeetingEvent> {
  const fields = meetingEventFields(input);
  const row = await insertMeetingEvent(db, accountId, {
    availability: DEFAULT_AVAILABILITY,
    ...fields,
    name: input.name,
    slug: input.slug,
    id: newId(),
    by,
  });
  return presentMeetingEvent(row ?? fail('MEET-003', `The slug "${input.slug}" is taken.`));
}
