import type { Queryable } from '../../db/client.ts';
import { findMeeting } from '../../db/queries/meetings.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Meeting, presentMeeting } from './present-meeting.ts';

/** One of the account's meetings; none (or another account's) is 404 MEET-002. */
export async function getMeeting(db: Queryable, accountId: string, id: string): Promise<Meeting> {
  const row = isId(id) ? await findMeeting(db, accountId, id) : undefined;
  return presentMeeting(row ?? fail('MEET-002'));
}
