import type { AppContext } from '../../context.ts';
import { findCheckoutSession } from '../../db/queries/billing.ts';
import { stripePayments } from '../../providers/payments/index.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { cancelCheckout } from './cancel-checkout.ts';
import { completeCheckout } from './complete-checkout.ts';

const STRIPE: Actor = { id: 'stripe', name: 'Stripe', source: 'checkout', subSource: 'stripe' };

/** What a webhook event did. */
export type StripeEventOutcome = 'completed' | 'already-completed' | 'canceled' | 'ignored';

interface SessionObject {
  id?: unknown;
  payment_status?: unknown;
  payment_intent?: unknown;
  customer?: unknown;
  metadata?: { account_id?: unknown } | null;
}

/**
 * Applies a verified Stripe event. `checkout.session.completed` (when paid) and
 * `checkout.session.async_payment_succeeded` complete our session — once: a replay is
 * `already-completed` — with the card the PaymentIntent saved; `checkout.session.expired` cancels
 * it. Events of other types, or for sessions that are not ours, are ignored.
 */
export async function handleStripeEvent(ctx: AppContext, event: unknown): Promise<StripeEventOutcome> {
  const e = (event ?? {}) as { type?: unknown; data?: { object?: SessionObject } };
  const session = e.data?.object;
  const accountId = session?.metadata?.account_id;
  if (!session || typeof session.id !== 'string' || typeof accountId !== 'string' || !isId(accountId)) {
    return 'ignored';
  }
  const ref = { provider: 'stripe', providerSessionId: session.id };
  const ours = await findCheckoutSession(ctx.db, accountId, ref.provider, ref.providerSessionId);
  if (!ours) return 'ignored';

  if (e.type === 'checkout.session.expired') {
    await cancelCheckout(ctx.db, accountId, ref);
    return 'canceled';
  }
  const paid =
    e.type === 'checkout.session.async_payment_succeeded' ||
    (e.type === 'checkout.session.completed' &&
      (session.payment_status === 'paid' || session.payment_status === 'no_payment_required'));
  if (!paid) return 'ignored';
  if (ours.status === 'completed') return 'already-completed';

  let payment = {
    customerId: typeof session.customer === 'string' ? session.customer : null,
    paymentMethodId: null as string | null,
  };
  if (typeof session.payment_intent === 'string') {
    const saved = await stripePayments(ctx.config).paymentIntentMethod(session.payment_intent);
    payment = { customerId: saved.customerId ?? payment.customerId, paymentMethodId: saved.paymentMethodId };
  }
  const { credited } = await completeCheckout(ctx.db, accountId, ref, payment, STRIPE);
  return credited ? 'completed' : 'already-completed';
}
