import type { Queryable } from '../../db/client.ts';
import { findActiveMeetingEventBySlug } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { isSlug } from './event-input.ts';
import { type PublicMeetingEvent, presentPublicMeetingEvent } from './present-meeting-event.ts';

/** The public face of the active event type with this slug; unknown or inactive is 404 MEET-001. */
export async function getPublicMeetingEvent(db: Queryable, slug: string): Promise<PublicMeetingEvent> {
  const row = isSlug(slug) ? await findActiveMeetingEventBySlug(db, slug) : undefined;
  return presentPublicMeetingEvent(row ?? fail('MEET-001'));
}
