import type { Queryable } from '../../db/client.ts';
import { findMeetingEvent } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type MeetingEvent, presentMeetingEvent } from './present-meeting-event.ts';

/** One of the account's meeting event types; none (or another account's) is 404 MEET-001. */
export async function getMeetingEvent(db: Queryable, accountId: string, id: string): Promise<MeetingEvent> {
  const row = isId(id) ? await findMeetingEvent(db, accountId, id) : undefined;
  return presentMeetingEvent(row ?? fail('MEET-001'));
}
