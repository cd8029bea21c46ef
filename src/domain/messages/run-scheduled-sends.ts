import type { Db } from '../../db/client.ts';
import { dueScheduledJobs, endScheduledJob } from '../../db/queries/send-jobs.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { type SendMessagesInput, sendMessages } from './send-messages.ts';

/**
 * Runs the scheduled sends whose time has come, each as the send it was (its stored request, by its
 * author), charging the balance now. An expected failure (e.g. ACCT-002 when the balance no longer
 * covers it, GRP-003, a deleted list) ends the job as `failed` with that error; MSG-008 means another
 * worker ran it or it was cancelled meanwhile. Anything else is logged and retried next round.
 * Answers how many were due.
 */
export async function runScheduledSends(db: Db, limit: number, log: (msg: string) => void = () => {}) {
  const due = await dueScheduledJobs(db, limit);
  for (const j of due) {
    try {
      await sendMessages(db, j.account_id, j.request as SendMessagesInput, j.created_by as Actor, {
        scheduledJobId: j.id,
      });
    } catch (err) {
      if (!(err instanceof AppError)) {
        log(`scheduled send ${j.id}: ${(err as Error).message}`);
        continue;
      }
      if (err.code === 'MSG-008') continue;
      await endScheduledJob(db, j.account_id, j.id, {
        status: 'failed',
        error: { code: err.code, description: err.message },
      });
    }
  }
  return due.length;
}
