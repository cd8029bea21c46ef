/**
 * Test support: a local HTTP server that speaks the part of Stripe's REST API the payments adapter
 * uses (Checkout Sessions, PaymentIntents; form bodies, Bearer key, Idempotency-Key replay), and
 * signs webhook events the way Stripe does.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.ts';
import { stripeSignature } from '../../src/providers/payments/stripe-signature.ts';
import { startTestService, type TestService } from '../helpers.ts';

export const FAKE_STRIPE_KEY = 'sk_test_sparrow';
export const FAKE_STRIPE_WEBHOOK_SECRET = 'whsec_sparrow_test';

/** A request the fake received. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  form: Record<string, string>;
}

interface Session {
  id: string;
  object: 'checkout.session';
  url: string;
  client_reference_id: string;
  customer: string | null;
  payment_intent: string | null;
  payment_status: 'unpaid' | 'paid';
  metadata: Record<string, string>;
  amount_total: number;
  currency: string;
}

/** A running fake Stripe. */
export interface FakeStripe {
  url: string;
  requests: SeenRequest[];
  /** Answer the next n requests to this path with 500. */
  failNext(path: string, n: number): void;
  /** Decline every off-session charge (402 card_error) until set back. */
  setDecline(decline: boolean): void;
  /** Pays a session as the payer would: answers the signed-ready `checkout.session.completed` event. */
  pay(sessionId: string): object;
  /** Stripe-Signature header for a payload. */
  sign(payload: string, at?: number): string;
  /** PaymentIntents charged (one per distinct idempotency key). */
  charges(): number;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return Object.fromEntries(new URLSearchParams(text));
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: SeenRequest[] = [];
  const sessions = new Map<string, Session>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const failures = new Map<string, number>();
  let decline = false;
  let n = 0;
  let charged = 0;

  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const form = await readForm(req);
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    requests.push({
      method: req.method ?? '',
      path,
      authorization: req.headers.authorization,
      idempotencyKey,
      form,
    });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${FAKE_STRIPE_KEY}`) {
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    }
    const failing = failures.get(path) ?? 0;
    if (failing > 0) {
      failures.set(path, failing - 1);
      return send(500, { error: { type: 'api_error', message: 'Something went wrong' } });
    }
    const replayKey = idempotencyKey ? `${path}:${idempotencyKey}` : undefined;
    const replay = replayKey ? replays.get(replayKey) : undefined;
    if (replay) return send(replay.status, replay.body);
    const answer = (status: number, body: unknown) => {
      if (replayKey) replays.set(replayKey, { status, body });
      send(status, body);
    };

    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const id = `cs_test_${++n}`;
      const s: Session = {
        id,
        object: 'checkout.session',
        url: `https://checkout.stripe.test/c/pay/${id}`,
        client_reference_id: form.client_reference_id,
        customer: null,
        payment_intent: null,
        payment_status: 'unpaid',
        metadata: { account_id: form['metadata[account_id]'], session_id: form['metadata[session_id]'] },
        amount_total: Number(form['line_items[0][price_data][unit_amount]']),
        currency: form['line_items[0][price_data][currency]'],
      };
      sessions.set(id, s);
      return answer(200, s);
    }
    const pi = /^\/v1\/payment_intents\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && pi) {
      return send(200, {
        id: pi[1],
        object: 'payment_intent',
        status: 'succeeded',
        payment_method: `pm_${pi[1]}`,
        customer: `cus_${pi[1]}`,
      });
    }
    if (req.method === 'POST' && path === '/v1/payment_intents') {
      if (decline) {
        return answer(402, {
          error: {
            type: 'card_error',
            code: 'card_declined',
            decline_code: 'insufficient_funds',
            message: 'Your card has insufficient funds.',
          },
        });
      }
      charged++;
      return answer(200, {
        id: `pi_charge_${++n}`,
        object: 'payment_intent',
        status: 'succeeded',
        amount: Number(form.amount),
        currency: form.currency,
        payment_method: form.payment_method,
        customer: form.customer ?? null,
      });
    }
    send(404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (path, count) => failures.set(path, count),
    setDecline: (d) => {
      decline = d;
    },
    pay(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no fake session ${sessionId}`);
      s.payment_status = 'paid';
      s.payment_intent = `pi_checkout_${sessionId}`;
      s.customer = `cus_${sessionId}`;
      return {
        id: `evt_${++n}`,
        object: 'event',
        type: 'checkout.session.completed',
        data: { object: { ...s } },
      };
    },
    sign(payload, at = Math.floor(Date.now() / 1000)) {
      return `t=${at},v1=${stripeSignature(FAKE_STRIPE_WEBHOOK_SECRET, at, payload)}`;
    },
    charges: () => charged,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A test service whose payments provider is Stripe, talking to `stripe` with the fake's key and webhook secret. */
export function startStripeTestService(stripe: FakeStripe): Promise<TestService> {
  return startTestService({
    rateLimitPerMinute: 1_000_000,
    payments: {
      ...loadConfig().payments,
      provider: 'stripe',
      stripeApiBase: stripe.url,
      stripeSecretKey: FAKE_STRIPE_KEY,
      stripeWebhookSecret: FAKE_STRIPE_WEBHOOK_SECRET,
    },
  });
}
