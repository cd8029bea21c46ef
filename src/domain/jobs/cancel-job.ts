import { type Db, withTx } from '../../db/client.ts';
import {
  cancelContactJob,
  dropJobCursors,
  findJob,
  lockJobCursors,
  lockUndispatchedMessages,
  markSendJobCancelled,
} from '../../db/queries/jobs.ts';
import { failCandidates } from '../../db/queries/message-dispatch.ts';
import { endScheduledJob } from '../../db/queries/send-jobs.ts';
import { ERRORS, fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { presentOneJob, requireJob } from './get-job.ts';
import type { JobResource } from './present-job.ts';

/** Messages failed per statement of a cancel (one transaction holds them all). */
const CHUNK = 5000;

/** The error a cancelled message carries. */
export const CANCELLED_ERROR = { code: 'JOB-001', description: ERRORS['JOB-001'].message };

/**
 * Cancels a job (PUT …/jobs/{jobId}/cancel):
 * - a scheduled send ends `cancelled` before it runs (nothing sent or charged);
 * - a running send (`queued`, `sending`): in one transaction, every message no dispatcher has
 *   taken yet is failed with JOB-001 and refunded, with its `message-status` event (the
 *   dispatcher's own failure path, failCandidates). Messages a dispatcher already holds may be at
 *   the carrier: they finish normally. The job then reads `cancelled`;
 * - a bulk contact operation stops after the chunk in progress (what is done stays done).
 * A job that has ended (completed, failed, or cancelled already) is 409 MSG-008: a cancel takes
 * effect once. MSG-007 unknown job.
 */
export async function cancelJob(db: Db, accountId: string, jobId: string, by: Actor): Promise<JobResource> {
  const job = await requireJob(db, accountId, jobId);
  if (job.kind === 'contacts') {
    const row = await cancelContactJob(db, accountId, job.id, by);
    if (row) return presentOneJob(db, accountId, row);
  } else if (job.status === 'scheduled') {
    const row = await endScheduledJob(db, accountId, job.id, { status: 'cancelled' });
    if (row) return presentOneJob(db, accountId, { ...job, ...row });
  } else if (!job.cancelled_at && (job.status === 'queued' || job.status === 'sending')) {
    const row = await cancelRunningSend(db, accountId, job.id, by);
    if (row) return presentOneJob(db, accountId, row);
  }
  const now = (await findJob(db, accountId, job.id)) ?? job;
  const status = now.cancelled_at ? 'cancelled' : now.status;
  return fail('MSG-008', `The job is ${status}: only a scheduled or running job can be cancelled.`);
}

/**
 * Fails and refunds a running send's undispatched messages, under the locks the dispatcher takes
 * (its cursors first, then message rows, then the job row: the claim's order, so neither waits for
 * the other in a cycle). Undefined when another cancel got there first.
 */
async function cancelRunningSend(db: Db, accountId: string, jobId: string, by: Actor) {
  return withTx(db, async (tx) => {
    await lockJobCursors(tx, accountId, jobId);
    const ids = await lockUndispatchedMessages(tx, accountId, jobId);
    for (let i = 0; i < ids.length; i += CHUNK) {
      await failCandidates(
        tx,
        ids.slice(i, i + CHUNK).map((id) => ({ accountId, id, error: CANCELLED_ERROR })),
      );
    }
    await dropJobCursors(tx, accountId, jobId);
    return markSendJobCancelled(tx, accountId, jobId, by);
  });
}
