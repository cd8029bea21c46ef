import type { Queryable } from '../../db/client.ts';
import { findMeetingEvent, insertMeetingEvent } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { isId, newId, randomToken } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type MeetingEvent, presentMeetingEvent } from './present-meeting-event.ts';

/** Slugs to try for a copy of `slug`: slug-copy, slug-copy-2 … slug-copy-9, then a random suffix. */
function candidates(slug: string): string[] {
  const suffixes = ['copy', ...Array.from({ length: 8 }, (_, i) => `copy-${i + 2}`)];
  const random = randomToken(6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 8);
  suffixes.push(`copy-${random}`);
  // Trimmed so that the result stays within 64 characters.
  return suffixes.map((s) => `${slug.slice(0, 63 - s.length).replace(/-+$/, '')}-${s}`);
}

/**
 * Copies a meeting event type (every setting, the hosts included) under a new unique slug and the
 * name "<name> (copy)". Its meetings are not copied. Unknown event type → MEET-001.
 */
export async function duplicateMeetingEvent(
  db: Queryable,
  accountId: string,
  id: string,
  by: Actor,
): Promise<MeetingEvent> {
  const src = (isId(id) ? await findMeetingEvent(db, accountId, id) : undefined) ?? fail('MEET-001');
  const fields = {
    name: `${src.name.slice(0, 193)} (copy)`,
    description: src.description,
    durations: src.durations,
    slotIncrement: src.slot_increment,
    timezone: src.timezone,
    availability: src.availability,
    bufferMinutes: src.buffer_minutes,
    minNoticeMinutes: src.min_notice_minutes,
    horizonDays: src.horizon_days,
    hosts: src.hosts,
    active: src.active,
    reminderMinutes: src.reminder_minutes,
    reminderSms: src.reminder_sms,
  };
  for (const slug of candidates(src.slug)) {
    const row = await insertMeetingEvent(db, accountId, { ...fields, slug, id: newId(), by });
    if (row) return presentMeetingEvent(row);
  }
  return fail('MEET-003', 'No free slug was found for the copy; create it with a slug of your own.');
}
