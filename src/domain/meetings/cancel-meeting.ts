import type { Queryable } from '../../db/client.ts';
import { cancelMeeting as cancelRow, findMeeting } from '../../db/queries/meetings.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type Meeting, presentMeeting } from './present-meeting.ts';

/**
 * Cancels an upcoming meeting: its slot is bookable again at once and its reminder is not sent.
 * Cancelling a cancelled meeting answers it unchanged; a meeting that has ended is 409 MEET-018;
 * unknown is 404 MEET-002. Attendees are not texted about the cancellation.
 */
export async function cancelMeeting(
  db: Queryable,
  accountId: string,
  id: string,
  by: Actor,
): Promise<Meeting> {
  if (!isId(id)) fail('MEET-002');
  const cancelled = await cancelRow(db, accountId, id, by);
  if (cancelled) return presentMeeting(cancelled);
  const row = (await findMeeting(db, accountId, id)) ?? fail('MEET-002');
  if (row.status === 'cancelled') return presentMeeting(row);
  return fail('MEET-018');
}
