import type { Queryable } from '../../db/client.ts';
import { deleteMeetingEvent as deleteRow } from '../../db/queries/meetings-events.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/**
 * Deletes a meeting event type and frees its slug; 404 MEET-001 when the account has none by that
 * id. Meetings booked on it stay (with `eventId` null) and keep their reminders.
 */
export async function deleteMeetingEvent(db: Queryable, accountId: string, id: string): Promise<void> {
  if (!isId(id) || !(await deleteRow(db, accountId, id))) fail('MEET-001');
}
