import type { Db } from '../../db/client.ts';
import {
  completeEndedMeetings,
  type MeetingRow,
  markReminderSent,
  REMINDER_QUEUE,
} from '../../db/queries/meetings.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import { SYSTEM } from '../actor.ts';
import { type LockedQueue, type Log, runLocked } from '../claim.ts';
import { accountName, meetingWhen, textAttendees } from './text-attendees.ts';

const REMINDERS = { ...SYSTEM, subSource: 'meeting-reminders' };

const REMINDER_ITEMS: LockedQueue<MeetingRow> = {
  name: 'meeting-reminders',
  spec: REMINDER_QUEUE,
  describe: (m) => `meeting ${m.id} of account ${m.account_id}`,
};

/**
 * Sends up to `limit` due meeting reminders, each in its own transaction (the claim helper): the
 * meeting is locked (SKIP LOCKED), its attendees' texts are queued and the reminder is marked sent,
 * all or nothing, so a reminder goes out once even when workers race or die midway. A reminder
 * with SMS off is only marked. A failure is logged and the reminder tried again next round.
 * Answers how many meetings were handled.
 */
export async function sendDueReminders(db: Db, limit: number, log: Log, prices: PriceTable): Promise<number> {
  return runLocked(db, log, REMINDER_ITEMS, limit, async (tx, m) => {
    if (m.reminder_sms) {
      const name = await accountName(tx, m.account_id);
      await textAttendees(
        tx,
        m.account_id,
        m.attendees,
        `${name}: reminder: ${meetingWhen(m.name, m.timezone, m.start_at)}.`,
        REMINDERS,
        prices,
      );
    }
    await markReminderSent(tx, m.account_id, m.id);
  });
}

/** Marks up to `limit` upcoming meetings that have ended as completed; answers how many. */
export async function completeMeetings(db: Db, limit: number): Promise<number> {
  return completeEndedMeetings(db, limit);
}
