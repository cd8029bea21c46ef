import type { AppContext } from '../../context.ts';
import { insertCheckoutSession } from '../../db/queries/billing.ts';
import { fail } from '../../errors.ts';
import { paymentsProvider } from '../../providers/payments/index.ts';
import { type Frequency, MAX_COMMITMENT, minorUnits, PLANS, type PlanId } from '../../schemas/plans.ts';
import { newId } from '../../util/ids.ts';
import { getAccount } from '../accounts/get-account.ts';
import type { Actor } from '../actor.ts';
import { redirectUrl } from './simulator-checkout.ts';

/** The body of POST …/checkout. */
export interface CheckoutInput {
  plan: PlanId;
  commitment: number;
  frequency: Frequency;
  name: string;
  email: string;
  address?: { line1?: string; line2?: string; city?: string; state?: string; postalCode?: string };
  tax?: { type?: string; id?: string };
  segmentUnderstanding?: boolean;
}

/** An absolute http(s) URL once the `{CHECKOUT_SESSION_ID}` placeholder is filled in. */
function isHttpUrl(template: string): boolean {
  try {
    const u = new URL(redirectUrl(template, 'cs_x'));
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Opens a checkout session to move the account to a paid plan: the commitment (per billing period,
 * at least the plan's minimum, else BILL-001) is what completing it charges and credits. The
 * configured payment provider hosts the page (the simulator: our public listener; Stripe: its
 * Checkout); answers that page's URL. A provider failure → BILL-005 and nothing is stored.
 */
export async function createCheckout(
  ctx: AppContext,
  accountId: string,
  input: CheckoutInput,
  urls: { successUrl: string; cancelUrl: string },
  by: Actor,
): Promise<string> {
  for (const [name, url] of Object.entries(urls)) {
    if (!isHttpUrl(url)) fail('VAL-001', `Invalid querystring: ${name} must be an absolute http(s) URL.`);
  }
  if (ctx.config.payments.provider === 'none') fail('BILL-006');
  const plan = PLANS[input.plan];
  if (input.commitment > MAX_COMMITMENT) {
    fail('VAL-001', `Invalid body: commitment must be at most ${MAX_COMMITMENT}.`);
  }
  if (input.commitment < plan.minimumCommitment) {
    fail('BILL-001', `The ${plan.name} plan needs a commitment of at least ${plan.minimumCommitment}.`);
  }
  const account = await getAccount(ctx.db, accountId);
  const provider = paymentsProvider(ctx.config);
  const id = newId();
  const checkout = await provider.createCheckout({
    accountId,
    sessionId: id,
    amountMinor: minorUnits(input.commitment),
    currency: account.currency,
    description: `${plan.name} plan (${input.frequency})`,
    email: input.email,
    successUrl: urls.successUrl,
    cancelUrl: urls.cancelUrl,
  });
  await insertCheckoutSession(ctx.db, accountId, {
    id,
    provider: provider.name,
    providerSessionId: checkout.providerSessionId,
    url: checkout.url,
    plan: plan.id,
    commitment: input.commitment,
    frequency: input.frequency,
    name: input.name,
    email: input.email,
    address: input.address ?? null,
    tax: input.tax ?? null,
    segmentUnderstanding: input.segmentUnderstanding ?? null,
    amount: input.commitment,
    currency: account.currency,
    successUrl: urls.successUrl,
    cancelUrl: urls.cancelUrl,
    by,
  });
  return checkout.url;
}
