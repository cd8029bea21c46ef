import type { AppContext } from '../../context.ts';
import { withTx } from '../../db/client.ts';
import { adjustBalance } from '../../db/queries/accounts.ts';
import { insertCredit } from '../../db/queries/billing.ts';
import {
  type ClaimedTopup,
  markTopupAttemptFailed,
  markTopupSucceeded,
  startDueTopups,
  TOPUP_CLAIM_RETURNING,
  TOPUP_QUEUE,
} from '../../db/queries/billing-topups.ts';
import { AppError } from '../../errors.ts';
import { isPaymentsProvider, paymentsProvider } from '../../providers/payments/index.ts';
import { minorUnits } from '../../schemas/plans.ts';
import { newId } from '../../util/ids.ts';
import { type Actor, SYSTEM } from '../actor.ts';
import { type Backoff, backoffMs, type LeasedQueue, runLeased } from '../claim.ts';

const WORKER: Actor = { ...SYSTEM, subSource: 'auto-topup' };

/** How long a claimed top-up is a worker's before another may retry it (seconds). */
export const TOPUP_LEASE_SECONDS = 120;
/** Attempts before a top-up fails for good. */
export const TOPUP_MAX_ATTEMPTS = 5;
/** Wait before attempt n+1 after n failed attempts: 30 s, 2 min, 10 min, 1 h. */
export const TOPUP_BACKOFF: Backoff = {
  baseMs: 30_000,
  schedule: [30_000, 120_000, 600_000, 3_600_000],
  maxMs: 3_600_000,
  maxAttempts: TOPUP_MAX_ATTEMPTS,
};

/**
 * The top-up queue as the worker charges it. A refusal or an outage is recorded by chargeTopup;
 * an unexpected fault is logged and tried again after the same backoff (a top-up claimed more than
 * TOPUP_MAX_ATTEMPTS times fails at its next claim).
 */
const TOPUPS: LeasedQueue<ClaimedTopup> = {
  name: 'auto-topup',
  spec: TOPUP_QUEUE,
  leaseSeconds: TOPUP_LEASE_SECONDS,
  backoff: { ...TOPUP_BACKOFF, maxAttempts: undefined },
  key: (t) => [t.account_id, t.id],
  attempts: (t) => t.attempts,
  describe: (t) => `top-up ${t.id} of account ${t.account_id}`,
  returning: TOPUP_CLAIM_RETURNING,
};

/**
 * One round of auto top-up: starts a top-up for each enabled account whose balance fell below its
 * threshold (one per dip, see startDueTopups), then charges the due ones. Answers how many top-ups
 * it started plus how many it charged.
 */
export async function runAutoTopups(ctx: AppContext, limit: number): Promise<number> {
  const started = await startDueTopups(ctx.db, limit);
  const charged = await runLeased(ctx.db, ctx.log, TOPUPS, limit, (t) => chargeTopup(ctx, t));
  return started.length + charged;
}

/**
 * Charges one claimed top-up with its idempotency key (every attempt the same key: a retry after a
 * crash cannot charge twice). On success, marks it succeeded, credits the balance and records the
 * credit in ONE transaction. A refusal fails it; an outage is retried with backoff until
 * TOPUP_MAX_ATTEMPTS. An unexpected fault throws: the claim helper logs it and retries after the backoff.
 */
async function chargeTopup(ctx: AppContext, t: ClaimedTopup): Promise<void> {
  const failed = (code: string, description: string, retryable: boolean) => {
    const retryAt =
      retryable && t.attempts < TOPUP_MAX_ATTEMPTS
        ? new Date(Date.now() + backoffMs(TOPUP_BACKOFF, t.attempts))
        : null;
    return markTopupAttemptFailed(ctx.db, t.account_id, t.id, { code, description }, retryAt);
  };
  if (t.attempts > TOPUP_MAX_ATTEMPTS) return failed('BILL-005', 'Gave up after repeated attempts.', false);
  if (!t.payment_method_id || !isPaymentsProvider(t.provider)) {
    return failed('BILL-002', 'No saved payment method: complete a checkout first.', false);
  }
  let result: Awaited<ReturnType<ReturnType<typeof paymentsProvider>['charge']>>;
  try {
    result = await paymentsProvider(ctx.config, t.provider).charge({
      accountId: t.account_id,
      customerId: t.customer_id,
      paymentMethodId: t.payment_method_id,
      amountMinor: minorUnits(t.amount),
      currency: t.currency,
      description: 'Sparrow auto top-up',
      idempotencyKey: t.idempotency_key,
    });
  } catch (err) {
    // The provider is not configured in this process (BILL-005): a configuration fix lets it pass.
    if (err instanceof AppError) return failed(err.code, err.message, true);
    throw err;
  }
  if (!result.ok) return failed(result.error.code, result.error.description, result.retryable);
  const { paymentId } = result;
  await withTx(ctx.db, async (tx) => {
    if (!(await markTopupSucceeded(tx, t.account_id, t.id, paymentId))) return;
    const balance = await adjustBalance(tx, t.account_id, t.amount);
    if (balance === undefined) throw new Error(`account ${t.account_id} vanished during a top-up`);
    await insertCredit(tx, t.account_id, {
      id: newId(),
      type: 'topup',
      amount: t.amount,
      balanceAfter: balance,
      referenceId: t.id,
      description: 'Auto top-up',
      by: WORKER,
    });
  });
}
