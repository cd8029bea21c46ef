import { createHash } from 'node:crypto';
import { randomToken } from '../../util/ids.ts';
import type {
  ChargeRequest,
  ChargeResult,
  CheckoutRequest,
  CreatedCheckout,
  PaymentsProvider,
} from './types.ts';

const SESSION = /^cs_sim_([0-9a-f]{32})_([A-Za-z0-9_-]{16,64})$/;

/** The account a simulator checkout session id belongs to (it is spelled into the id), if it is one. */
export function simulatorSessionAccount(providerSessionId: string): string | undefined {
  const m = SESSION.exec(providerSessionId);
  if (!m) return undefined;
  const h = m[1];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The payment method a simulator checkout saves (deterministic per session). */
export function simulatorPaymentMethod(providerSessionId: string): {
  customerId: string;
  paymentMethodId: string;
} {
  const h = createHash('sha256').update(providerSessionId).digest('hex').slice(0, 24);
  return { customerId: `cus_sim_${h}`, paymentMethodId: `pm_sim_${h}` };
}

/**
 * Payments without money or network: a checkout is a page of our public listener
 * (`{externals}/checkout/{sessionId}`, with Pay and Cancel), and every charge of a saved simulator
 * payment method succeeds, with a payment id derived from its idempotency key (a retry is the same
 * payment).
 */
export class SimulatorPayments implements PaymentsProvider {
  readonly name = 'simulator' as const;

  constructor(private readonly externalsUrl: string) {}

  async createCheckout(req: CheckoutRequest): Promise<CreatedCheckout> {
    const providerSessionId = `cs_sim_${req.accountId.replaceAll('-', '')}_${randomToken(18)}`;
    return { providerSessionId, url: `${this.externalsUrl}/checkout/${providerSessionId}` };
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    if (!req.paymentMethodId.startsWith('pm_sim_')) {
      return {
        ok: false,
        retryable: false,
        error: { code: 'payment_method_unknown', description: 'Not a simulator payment method.' },
      };
    }
    const id = createHash('sha256').update(req.idempotencyKey).digest('hex').slice(0, 24);
    return { ok: true, paymentId: `pi_sim_${id}` };
  }
}
