import { type Db, type Queryable, withSavepoint, withTx } from '../../db/client.ts';
import { type ContactRow, findContact } from '../../db/queries/contacts.ts';
import { type Delay, type DripRow, findDrip, type StepRow, stepsOf } from '../../db/queries/drips.ts';
import {
  advanceExecution,
  type ExecutionRow,
  endExecution,
  hasReplySince,
  insertStepSend,
  lockExecution,
  setStepSendOutcome,
} from '../../db/queries/drips-engine.ts';
import { AppError } from '../../errors.ts';
import { renderTemplate } from '../../messaging/render.ts';
import type { Actor } from '../actor.ts';
import { queueMessage } from '../messages/queue-message.ts';
import { groupSenderPool, sendersInOrder } from '../numbers/group-sender-pool.ts';

/** How long an execution that sent its last step waits for a reply before it ends as `completed` (noAction). */
export const REPLY_WINDOW: Delay = { days: 1, hours: 0, minutes: 0 };

/** An expected failure recorded on an execution. */
type Failure = { code: string; description: string };

/**
 * Runs one due execution, in one transaction under its row lock (so a deactivation, a reply or
 * another runner cannot interleave): re-checks it is still active and due; ends it when its drip
 * is inactive (`stopped`), past maxDuration (`expired`), the contact opted out (`opted-out`) or
 * replied (`engaged`), or it has no step left (`completed`). Otherwise it records the step send
 * (unique per execution and position: a step is sent at most once even when a runner died after
 * committing) and queues the message through queueMessage (opt-out, balance and pricing apply).
 * A send that cannot be queued (402 balance, no mobile, no sender…) ends it as `errored`.
 * Then the next step is due after its delay (or, after the last step, the reply window).
 */
export async function runDripStep(db: Db, claimed: ExecutionRow, by: Actor): Promise<void> {
  const accountId = claimed.account_id;
  await withTx(db, async (tx) => {
    const e = await lockExecution(tx, accountId, claimed.id);
    if (e?.status !== 'active' || !e.due_at || e.due_at > new Date()) return;
    const drip = await findDrip(tx, accountId, e.drip_id);
    if (!drip?.active) return endExecution(tx, accountId, e.id, 'stopped');
    const maxEnd = drip.max_duration
      ? new Date(new Date(e.entered_at).getTime() + drip.max_duration * 86_400_000)
      : undefined;
    if (maxEnd && maxEnd <= new Date()) return endExecution(tx, accountId, e.id, 'expired');
    const contact = await findContact(tx, accountId, e.contact_id);
    if (!contact) return;
    if (contact.opted_out_at) return endExecution(tx, accountId, e.id, 'opted-out');
    if (await hasReplySince(tx, accountId, contact.id, e.entered_at, e.trigger_message_id))
      return endExecution(tx, accountId, e.id, 'engaged');

    const steps = await stepsOf(tx, accountId, [drip.id]);
    const step = steps[e.next_position];
    if (!step) return endExecution(tx, accountId, e.id, 'completed');
    const next = steps[e.next_position + 1];
    const advance = () =>
      advanceExecution(tx, accountId, e.id, {
        nextPosition: e.next_position + 1,
        lastStepId: step.id,
        delay: next ? next.delay : REPLY_WINDOW,
        maxDuration: drip.max_duration,
      });
    if (
      !(await insertStepSend(tx, accountId, {
        executionId: e.id,
        position: e.next_position,
        stepId: step.id,
      }))
    )
      return advance();

    const sent = await sendStep(tx, accountId, drip, step, contact, by);
    await setStepSendOutcome(tx, accountId, e.id, e.next_position, sent);
    if (sent.error)
      return endExecution(tx, accountId, e.id, 'errored', { lastStepId: step.id, error: sent.error });
    await advance();
  });
}

/**
 * Queues one step's message to the contact from the drip's group (a stable pick per contact, so a
 * drip keeps one conversation). Expected failures roll back to a savepoint and are answered.
 */
async function sendStep(
  tx: Queryable,
  accountId: string,
  drip: DripRow,
  step: StepRow,
  contact: ContactRow,
  by: Actor,
): Promise<{ messageId: string | null; error: Failure | null }> {
  if (!contact.mobile_number || !contact.mobile_valid)
    return {
      messageId: null,
      error: { code: 'CONT-001', description: 'The contact has no valid mobile number.' },
    };
  const to = contact.mobile_number;
  const body = renderTemplate(step.message, {
    id: contact.id,
    firstName: contact.first_name,
    lastName: contact.last_name,
    email: contact.email,
    mobile: contact.mobile_number,
    country: contact.mobile_country,
    attributes: contact.attributes,
  });
  if (body.trim() === '' && step.media.length === 0)
    return { messageId: null, error: { code: 'MSG-003', description: 'The message rendered empty.' } };
  try {
    const row = await withSavepoint(tx, async () => {
      const pool = await groupSenderPool(tx, accountId, drip.group_id ?? undefined);
      const numbers = sendersInOrder(pool);
      if (numbers.length === 0) throw new AppError('GRP-003');
      const sender = numbers[Number.parseInt(contact.id.slice(-6), 16) % numbers.length];
      return queueMessage(
        tx,
        accountId,
        {
          contactId: contact.id,
          phoneNumberId: sender.id,
          from: sender.number,
          to,
          body,
          template: step.message,
          media: step.media.map((m) => ({ url: m.url })),
        },
        by,
      );
    });
    // A contact blocked (or opted out) since the checks gets a failed, uncharged message.
    if (row.status === 'failed')
      return { messageId: row.id, error: row.error ?? { code: 'CONT-010', description: 'Not sent.' } };
    return { messageId: row.id, error: null };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { messageId: null, error: { code: err.code, description: err.message } };
  }
}
