import type { Config } from '../../config.ts';
import { fail } from '../../errors.ts';
import { SimulatorPayments } from './simulator.ts';
import { StripePayments } from './stripe.ts';
import type { PaymentsProvider, PaymentsProviderName } from './types.ts';

/** The Stripe-compatible adapter from STRIPE_API_BASE and STRIPE_SECRET_KEY; BILL-005 without a key. */
export function stripePayments(config: Config): StripePayments {
  if (!config.payments.stripeSecretKey) fail('BILL-005', 'The Stripe payment provider is not configured.');
  return new StripePayments({
    baseUrl: config.payments.stripeApiBase,
    secretKey: config.payments.stripeSecretKey,
  });
}

/**
 * The payment provider by name (default: the configured one, PAYMENTS_PROVIDER). Adapters hold no
 * connection, so building one per use is cheap. With PAYMENTS_PROVIDER=none there is none
 * (BILL-006); a simulated charge credits a balance for nothing, so the simulator is there only
 * while it is the configured provider (a payment method saved with it earlier charges nothing).
 */
export function paymentsProvider(
  config: Config,
  name: PaymentsProviderName | 'none' = config.payments.provider,
): PaymentsProvider {
  if (name === 'none') fail('BILL-006');
  if (name === 'simulator') {
    if (config.payments.provider !== 'simulator') {
      fail('BILL-006', 'The simulator payment provider is not enabled: PAYMENTS_PROVIDER is not simulator.');
    }
    return new SimulatorPayments(config.externalsUrl);
  }
  return stripePayments(config);
}

/** Whether a stored provider name is one of ours. */
export function isPaymentsProvider(name: string | null): name is PaymentsProviderName {
  return name === 'simulator' || name === 'stripe';
}
