import { completeMeetings, sendDueReminders } from '../domain/meetings/send-due-reminders.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 50;

/**
 * Meeting timers: sends each meeting's reminder text once when start − reminder comes (a row-based
 * timer, claimed with SKIP LOCKED), and marks meetings completed once they end. Checks every
 * second, at once again after a full batch.
 */
export const meetingReminders: WorkerTask = {
  name: 'meeting-reminders',
  run: async (ctx) => {
    const sent = await sendDueReminders(ctx.db, BATCH, ctx.log);
    const completed = await completeMeetings(ctx.db, BATCH);
    return sent === BATCH || completed === BATCH ? 0 : 1000;
  },
};
