import type { Db } from '../../../db/client.ts';
import {
  endScheduledJob,
  SCHEDULED_CLAIM_RETURNING,
  SCHEDULED_QUEUE,
  type ScheduledJob,
} from '../../../db/queries/send-jobs.ts';
import { AppError } from '../../../errors.ts';
import type { Actor } from '../../actor.ts';
import { type LeasedQueue, type Log, runLeased } from '../../claim.ts';
import { type SendMessagesInput, type SendSettings, sendMessages } from './send-messages.ts';

/** The scheduled sends as the worker runs them: an unexpected failure is tried again after 1 s, 2 s … 5 min. */
const SCHEDULED: LeasedQueue<ScheduledJob> = {
  name: 'scheduled-sends',
  spec: SCHEDULED_QUEUE,
  leaseSeconds: 300,
  backoff: { baseMs: 1000, maxMs: 5 * 60_000 },
  key: (j) => [j.account_id, j.id],
  attempts: (j) => j.attempts,
  describe: (j) => `scheduled send ${j.id}`,
  returning: SCHEDULED_CLAIM_RETURNING,
};

/**
 * Runs the scheduled sends whose time has come (the claim helper: leased, one worker each), each
 * as the send it was (its stored request, by its author), charging the balance now. An expected
 * failure (e.g. ACCT-002 when the balance no longer covers it, GRP-003, a deleted list) ends the job
 * as `failed` with that error; MSG-008 means it was cancelled (or run) meanwhile. Anything else is
 * logged and retried after the backoff. Answers how many were due. Sends apply the service's
 * `settings` (prices, EXTERNALS_URL).
 */
export async function runScheduledSends(db: Db, limit: number, log: Log, settings: SendSettings) {
  return runLeased(db, log, SCHEDULED, limit, async (j) => {
    try {
      await sendMessages(db, j.account_id, j.request as SendMessagesInput, j.created_by as Actor, settings, {
        scheduledJobId: j.id,
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'MSG-008') return;
      await endScheduledJob(db, j.account_id, j.id, {
        status: 'failed',
        error: { code: err.code, description: err.message },
      });
    }
  });
}
