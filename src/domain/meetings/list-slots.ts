import type { Queryable } from '../../db/client.ts';
import { busyMeetings } from '../../db/queries/meetings.ts';
import { findActiveMeetingEventBySlug } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { isSlug } from './event-input.ts';
import { freeSlots } from './slots.ts';

const DAY = 86_400_000;
/** The longest range one slots query may cover. */
export const MAX_SLOT_RANGE_DAYS = 31;

/** Free start times of an event type for one duration. */
export interface SlotList {
  slug: string;
  timezone: string;
  duration: number;
  from: string;
  to: string;
  slots: { start: string; end: string }[];
}

/**
 * The free slots of the active event type with this slug in [from, to) (default: the next 7
 * days) for `duration` minutes (default: the shortest offered). Errors: MEET-001 unknown slug,
 * MEET-010 duration not offered, MEET-017 range empty or longer than 31 days.
 */
export async function listSlots(
  db: Queryable,
  slug: string,
  query: { from?: string; to?: string; duration?: number },
): Promise<SlotList> {
  const event = (isSlug(slug) ? await findActiveMeetingEventBySlug(db, slug) : undefined) ?? fail('MEET-001');
  const duration = query.duration ?? Math.min(...event.durations);
  if (!event.durations.includes(duration)) {
    fail('MEET-010', `Allowed durations (minutes): ${event.durations.join(', ')}.`);
  }
  const now = Date.now();
  const from = query.from !== undefined ? Date.parse(query.from) : now;
  const to = query.to !== undefined ? Date.parse(query.to) : from + 7 * DAY;
  if (Number.isNaN(from) || Number.isNaN(to)) fail('VAL-001', '`from` and `to` must be ISO 8601 date-times.');
  if (to <= from || to - from > MAX_SLOT_RANGE_DAYS * DAY) fail('MEET-017');
  const busy = await busyMeetings(db, event.account_id, event.id, new Date(from - DAY), new Date(to + DAY));
  const slots = freeSlots(
    event,
    duration,
    { from, to },
    now,
    busy.map((b) => ({ start: b.start_at.getTime(), blockedUntil: b.blocked_until.getTime() })),
  );
  return {
    slug: event.slug,
    timezone: event.timezone,
    duration,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    slots: slots.map((s) => ({ start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() })),
  };
}
