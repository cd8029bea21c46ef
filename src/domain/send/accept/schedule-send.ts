import type { Db } from '../../../db/client.ts';
import { insertScheduledJob } from '../../../db/queries/send-jobs.ts';
import { fail } from '../../../errors.ts';
import { newId } from '../../../util/ids.ts';
import type { Actor } from '../../actor.ts';
import {
  jobInvalid,
  type SendMessagesInput,
  type SendMessagesResult,
  type SendSettings,
  sendMessages,
} from './send-messages.ts';

/** How far ahead a send may be scheduled. */
export const MAX_SCHEDULE_DAYS = 365;

/** What a scheduled send answers: the send's answer (nothing queued yet) plus its status and time. */
export type ScheduledSendResult = SendMessagesResult & { status: 'scheduled'; sendAt: string };

/**
 * A send with `sendAt`: checked and priced now by running it in a transaction that is rolled back
 * (every error of an immediate send, ACCT-002 included when the balance cannot cover it today), then
 * stored as a job in status `scheduled` with its request. The scheduled-sends worker runs it at
 * `sendAt` and charges the balance then; until then `PUT …/jobs/{jobId}/cancel` cancels it.
 * `sendAt` must be in the future and at most MAX_SCHEDULE_DAYS ahead (VAL-001).
 */
export async function scheduleSend(
  db: Db,
  accountId: string,
  input: SendMessagesInput,
  sendAt: string,
  by: Actor,
  settings: SendSettings,
): Promise<ScheduledSendResult> {
  const at = new Date(sendAt);
  if (Number.isNaN(at.getTime())) fail('VAL-001', '`sendAt` must be an ISO 8601 date-time.');
  if (at.getTime() <= Date.now())
    fail('VAL-001', `\`sendAt\` (${sendAt}) is in the past: leave it out to send now.`);
  if (at.getTime() > Date.now() + MAX_SCHEDULE_DAYS * 86_400_000)
    fail('VAL-001', `\`sendAt\` may be at most ${MAX_SCHEDULE_DAYS} days ahead.`);
  const estimate = await sendMessages(db, accountId, input, by, settings, { estimate: true });
  const job = await insertScheduledJob(db, accountId, {
    id: newId(),
    template: input.template ?? '',
    sendAt: at,
    request: input,
    submitted: estimate.queued + estimate.failed,
    price: estimate.estimatedPrice,
    invalid: jobInvalid(estimate.invalid),
    by,
  });
  return {
    jobId: job.id,
    requested: estimate.requested,
    valid: estimate.valid,
    queued: 0,
    failed: 0,
    estimatedPrice: estimate.estimatedPrice,
    messages: [],
    invalid: estimate.invalid,
    status: 'scheduled',
    sendAt: at.toISOString(),
  };
}
