import { type Db, withTx } from '../../db/client.ts';
import { adjustBalance } from '../../db/queries/accounts.ts';
import {
  type CheckoutSessionRow,
  closeCheckoutSession,
  findCheckoutSession,
  insertCredit,
  saveBillingProfile,
  setPaidPlan,
} from '../../db/queries/billing.ts';
import { fail } from '../../errors.ts';
import { PLANS, type PlanId } from '../../schemas/plans.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';

/** What completing a checkout came to. */
export interface CompletedCheckout {
  session: CheckoutSessionRow;
  /** False when the session had already been completed (a replayed webhook or a second click). */
  credited: boolean;
}

/**
 * Completes a paid checkout session, once: in ONE transaction (the session row locked) it marks
 * the session completed, moves the account to the paid plan, saves the billing details and the
 * payment method as the billing profile, credits the commitment to the balance and records the
 * credit in the ledger. A session already completed changes nothing (idempotent on the session).
 * Unknown session → BILL-003; a canceled one → BILL-004.
 */
export async function completeCheckout(
  db: Db,
  accountId: string,
  ref: { provider: string; providerSessionId: string },
  payment: { customerId: string | null; paymentMethodId: string | null },
  by: Actor,
): Promise<CompletedCheckout> {
  return withTx(db, async (tx) => {
    const session =
      (await findCheckoutSession(tx, accountId, ref.provider, ref.providerSessionId, true)) ??
      fail('BILL-003');
    if (session.status === 'completed') return { session, credited: false };
    if (!(await closeCheckoutSession(tx, accountId, session.id, 'completed'))) fail('BILL-004');
    await setPaidPlan(tx, accountId, session.plan, by);
    await saveBillingProfile(tx, accountId, session, payment);
    const balance = await adjustBalance(tx, accountId, session.amount);
    if (balance === undefined) fail('ACCT-001');
    const plan = PLANS[session.plan as PlanId];
    const recorded = await insertCredit(tx, accountId, {
      id: newId(),
      type: 'checkout',
      amount: session.amount,
      balanceAfter: balance,
      referenceId: session.id,
      description: `Checkout: ${plan?.name ?? session.plan} plan, ${session.frequency} commitment`,
      by,
    });
    // The session lock makes this unreachable; the ledger's unique reference is the second guard.
    if (!recorded) throw new Error(`checkout ${session.id} was already credited`);
    return { session: { ...session, status: 'completed' }, credited: true };
  });
}
