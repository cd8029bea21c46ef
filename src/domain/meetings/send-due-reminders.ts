import { type Db, withTx } from '../../db/client.ts';
import { claimDueReminder, completeEndedMeetings, markReminderSent } from '../../db/queries/meetings.ts';
import { SYSTEM } from '../actor.ts';
import { accountName, meetingWhen, textAttendees } from './text-attendees.ts';

const REMINDERS = { ...SYSTEM, subSource: 'meeting-reminders' };

/**
 * Sends up to `limit` due meeting reminders, each in its own transaction: the meeting is locked
 * (SKIP LOCKED), its attendees' texts are queued and the reminder is marked sent, all or nothing,
 * so a reminder goes out once even when workers race or die midway. A reminder with SMS off is
 * only marked. Answers how many meetings were handled.
 */
export async function sendDueReminders(db: Db, limit: number): Promise<number> {
  let handled = 0;
  while (handled < limit) {
    const done = await withTx(db, async (tx) => {
      const m = await claimDueReminder(tx);
      if (!m) return false;
      if (m.reminder_sms) {
        const name = await accountName(tx, m.account_id);
        await textAttendees(
          tx,
          m.account_id,
          m.attendees,
          `${name}: reminder: ${meetingWhen(m.name, m.timezone, m.start_at)}.`,
          REMINDERS,
        );
      }
      await markReminderSent(tx, m.account_id, m.id);
      return true;
    });
    if (!done) break;
    handled++;
  }
  return handled;
}

/** Marks up to `limit` upcoming meetings that have ended as completed; answers how many. */
export async function completeMeetings(db: Db, limit: number): Promise<number> {
  return completeEndedMeetings(db, limit);
}
