/** The payment providers: a deterministic simulator and a Stripe-compatible REST adapter. */
export type PaymentsProviderName = 'simulator' | 'stripe';

/** A hosted checkout to open for one of our checkout sessions. */
export interface CheckoutRequest {
  accountId: string;
  /** Our checkout session id (the provider's client reference; also its idempotency key). */
  sessionId: string;
  /** In minor units (cents). */
  amountMinor: number;
  currency: string;
  description: string;
  email: string;
  successUrl: string;
  cancelUrl: string;
}

/** A checkout the provider opened: its id and the page the payer goes to. */
export interface CreatedCheckout {
  providerSessionId: string;
  url: string;
}

/** An off-session charge of a saved payment method (an auto top-up). */
export interface ChargeRequest {
  accountId: string;
  customerId: string | null;
  paymentMethodId: string;
  amountMinor: number;
  currency: string;
  description: string;
  /** The same key on every attempt: the provider charges one top-up once. */
  idempotencyKey: string;
}

/** What a charge came to; `retryable` failures are tried again later. */
export type ChargeResult =
  | { ok: true; paymentId: string }
  | { ok: false; error: { code: string; description: string }; retryable: boolean };

/** A provider that takes payments. */
export interface PaymentsProvider {
  readonly name: PaymentsProviderName;
  /** Opens a hosted checkout; throws BILL-005 when the provider fails. */
  createCheckout(req: CheckoutRequest): Promise<CreatedCheckout>;
  /** Charges a saved payment method; never throws for a provider's refusal or outage. */
  charge(req: ChargeRequest): Promise<ChargeResult>;
}
