import { fail } from '../../errors.ts';
import type {
  ChargeRequest,
  ChargeResult,
  CheckoutRequest,
  CreatedCheckout,
  PaymentsProvider,
} from './types.ts';

/** Settings of the Stripe-compatible adapter. */
export interface StripeOptions {
  /** API root, e.g. https://api.stripe.com (any server speaking the same REST resources). */
  baseUrl: string;
  secretKey: string;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
}

interface StripeError {
  error?: { type?: string; code?: string; decline_code?: string; message?: string };
}

/** The provider's answer; status 0 with a `reason` when it could not be reached. */
interface Answer {
  status: number;
  body: Record<string, unknown> & StripeError;
  reason?: string;
}

/**
 * Stripe's REST API (form-encoded, `Authorization: Bearer`): Checkout Sessions that save the card
 * for later (`setup_future_usage=off_session`), PaymentIntents confirmed off-session for auto
 * top-ups, each with an Idempotency-Key.
 */
export class StripePayments implements PaymentsProvider {
  readonly name = 'stripe' as const;
  private readonly base: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: StripeOptions) {
    this.base = opts.baseUrl.replace(/\/$/, '');
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  async createCheckout(req: CheckoutRequest): Promise<CreatedCheckout> {
    const form = new URLSearchParams({
      mode: 'payment',
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
      client_reference_id: req.sessionId,
      customer_email: req.email,
      customer_creation: 'always',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': req.currency.toLowerCase(),
      'line_items[0][price_data][unit_amount]': String(req.amountMinor),
      'line_items[0][price_data][product_data][name]': req.description,
      'payment_intent_data[setup_future_usage]': 'off_session',
      'metadata[account_id]': req.accountId,
      'metadata[session_id]': req.sessionId,
    });
    const res = await this.request('POST', '/v1/checkout/sessions', form, `checkout-${req.sessionId}`);
    if (res.status !== 200 || typeof res.body.id !== 'string' || typeof res.body.url !== 'string') {
      fail('BILL-005', `The payment provider refused the checkout: ${describe(res)}`);
    }
    return { providerSessionId: res.body.id, url: res.body.url };
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    const form = new URLSearchParams({
      amount: String(req.amountMinor),
      currency: req.currency.toLowerCase(),
      payment_method: req.paymentMethodId,
      off_session: 'true',
      confirm: 'true',
      description: req.description,
      'metadata[account_id]': req.accountId,
    });
    if (req.customerId) form.set('customer', req.customerId);
    const res = await this.request('POST', '/v1/payment_intents', form, req.idempotencyKey);
    if (res.status === 200 && res.body.status === 'succeeded' && typeof res.body.id === 'string') {
      return { ok: true, paymentId: res.body.id };
    }
    const error = { code: errorCode(res), description: describe(res) };
    // Outages, rate limits and idempotency conflicts (a concurrent attempt) pass; refusals do not.
    const retryable = res.status === 0 || res.status === 409 || res.status === 429 || res.status >= 500;
    return { ok: false, error, retryable };
  }

  /** The customer and saved payment method of a PaymentIntent (a completed checkout's). */
  async paymentIntentMethod(
    id: string,
  ): Promise<{ customerId: string | null; paymentMethodId: string | null }> {
    const res = await this.request('GET', `/v1/payment_intents/${encodeURIComponent(id)}`);
    if (res.status !== 200)
      fail('BILL-005', `The payment provider did not answer the payment: ${describe(res)}`);
    const pm = res.body.payment_method;
    const customer = res.body.customer;
    return {
      customerId: typeof customer === 'string' ? customer : null,
      paymentMethodId: typeof pm === 'string' ? pm : null,
    };
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    form?: URLSearchParams,
    idempotencyKey?: string,
  ): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.secretKey}`,
      accept: 'application/json',
    };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: form?.toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      return {
        status: 0,
        body: {},
        reason: (err as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable',
      };
    }
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = await res.json();
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      // A body that is not JSON (a proxy's error page): the status alone tells what happened.
    }
    return { status: res.status, body };
  }
}

function errorCode(res: Answer): string {
  if (res.status === 0) return 'provider_unreachable';
  const e = res.body.error;
  return e?.decline_code ?? e?.code ?? e?.type ?? `http_${res.status}`;
}

function describe(res: Answer): string {
  if (res.status === 0) return `the provider is ${res.reason}`;
  const message = res.body.error?.message;
  return `HTTP ${res.status}${message ? `: ${message.slice(0, 300)}` : ''}`;
}
