import type { Queryable } from '../../db/client.ts';
import { listMeetingEvents as queryEvents } from '../../db/queries/meetings-events.ts';
import type { Page } from '../page.ts';
import { type MeetingEvent, presentMeetingEvent } from './present-meeting-event.ts';

/** A page of the account's meeting event types, newest first (optionally by partial name). */
export async function listMeetingEvents(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<Page<MeetingEvent>> {
  const { rows, total } = await queryEvents(db, accountId, filter, page);
  return { items: rows.map(presentMeetingEvent), totalCount: total, ...page };
}
