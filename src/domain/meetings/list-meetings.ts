import type { Queryable } from '../../db/client.ts';
import { listMeetings as queryMeetings } from '../../db/queries/meetings.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Page } from '../page.ts';
import { type Meeting, presentMeeting } from './present-meeting.ts';

/** Filters of the meetings list: status, start in [from, to), event type. */
export interface MeetingFilter {
  status?: 'upcoming' | 'cancelled' | 'completed';
  from?: string;
  to?: string;
  eventId?: string;
}

/** A page of the account's meetings by start time. An unknown eventId simply matches none. */
export async function listMeetings(
  db: Queryable,
  accountId: string,
  filter: MeetingFilter,
  page: { offset: number; limit: number },
): Promise<Page<Meeting>> {
  const from = filter.from !== undefined ? new Date(filter.from) : undefined;
  const to = filter.to !== undefined ? new Date(filter.to) : undefined;
  if ((from && Number.isNaN(from.getTime())) || (to && Number.isNaN(to.getTime()))) {
    fail('VAL-001', '`from` and `to` must be ISO 8601 date-times.');
  }
  if (filter.eventId !== undefined && !isId(filter.eventId)) {
    return { items: [], totalCount: 0, ...page };
  }
  const { rows, total } = await queryMeetings(
    db,
    accountId,
    { status: filter.status, from, to, eventId: filter.eventId },
    page,
  );
  return { items: rows.map(presentMeeting), totalCount: total, ...page };
}
