import type { AppContext } from '../../context.ts';
import { type CheckoutSessionRow, findCheckoutSession } from '../../db/queries/billing.ts';
import { fail } from '../../errors.ts';
import { simulatorPaymentMethod, simulatorSessionAccount } from '../../providers/payments/simulator.ts';
import type { Actor } from '../actor.ts';
import { cancelCheckout } from './cancel-checkout.ts';
import { completeCheckout } from './complete-checkout.ts';

const PAYER: Actor = { id: 'checkout', name: 'Checkout', source: 'checkout', subSource: 'simulator' };

/** The redirect address after a checkout, with Stripe's `{CHECKOUT_SESSION_ID}` placeholder filled in. */
export function redirectUrl(template: string, providerSessionId: string): string {
  return template.replaceAll('{CHECKOUT_SESSION_ID}', encodeURIComponent(providerSessionId));
}

/**
 * A simulator checkout session by the id in its page address (which names its account). The
 * pages exist only while the simulator is the configured payment provider; otherwise, or for an
 * unknown id, BILL-003.
 */
export async function findSimulatorCheckout(
  ctx: AppContext,
  providerSessionId: string,
): Promise<CheckoutSessionRow> {
  const accountId = simulatorSessionAccount(providerSessionId);
  if (!accountId || ctx.config.payments.provider !== 'simulator') fail('BILL-003');
  const ref = { provider: 'simulator', providerSessionId };
  return (
    (await findCheckoutSession(ctx.db, accountId, ref.provider, ref.providerSessionId)) ?? fail('BILL-003')
  );
}

/**
 * The simulator's Pay button: completes the session with a deterministic saved payment method
 * (once; paying again changes nothing) and answers where to send the payer. A canceled session → BILL-004.
 */
export async function paySimulatorCheckout(ctx: AppContext, providerSessionId: string): Promise<string> {
  const session = await findSimulatorCheckout(ctx, providerSessionId);
  await completeCheckout(
    ctx.db,
    session.account_id,
    { provider: 'simulator', providerSessionId },
    simulatorPaymentMethod(providerSessionId),
    PAYER,
  );
  return redirectUrl(session.success_url, providerSessionId);
}

/** The simulator's Cancel button: cancels an open session and answers where to send the payer. */
export async function cancelSimulatorCheckout(ctx: AppContext, providerSessionId: string): Promise<string> {
  const session = await findSimulatorCheckout(ctx, providerSessionId);
  await cancelCheckout(ctx.db, session.account_id, { provider: 'simulator', providerSessionId });
  return redirectUrl(session.cancel_url, providerSessionId);
}
