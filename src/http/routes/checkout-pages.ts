import { Type } from '@sinclair/typebox';
import type { CheckoutSessionRow } from '../../db/queries/billing.ts';
import { handleStripeEvent } from '../../domain/billing/handle-stripe-event.ts';
import {
  cancelSimulatorCheckout,
  findSimulatorCheckout,
  paySimulatorCheckout,
  redirectUrl,
} from '../../domain/billing/simulator-checkout.ts';
import { fail } from '../../errors.ts';
import { verifyStripeSignature } from '../../providers/payments/stripe-signature.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { PLANS, type PlanId } from '../../schemas/plans.ts';
import { sendPage } from '../page-headers.ts';
import { JSON_BODY_LIMIT } from '../plugins/content-types.ts';
import { ok } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['billing'];
const SessionParam = Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 200 }) });
const Redirect = { 303: { description: 'Redirects the payer (Location).', type: 'null' } };

function html(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The simulator's checkout page: what is being bought, with Pay and Cancel. */
function checkoutPage(s: CheckoutSessionRow): string {
  const plan = PLANS[s.plan as PlanId]?.name ?? s.plan;
  const id = encodeURIComponent(s.provider_session_id ?? '');
  const body =
    s.status === 'open'
      ? `<form method="post" action="/checkout/${id}/pay"><button type="submit">Pay ${html(String(s.amount))} ${html(s.currency)}</button></form>
<form method="post" action="/checkout/${id}/cancel"><button type="submit">Cancel</button></form>`
      : s.status === 'completed'
        ? `<p>This checkout is paid. <a href="${html(redirectUrl(s.success_url, s.provider_session_id ?? ''))}">Continue</a></p>`
        : `<p>This checkout was cancelled. <a href="${html(redirectUrl(s.cancel_url, s.provider_session_id ?? ''))}">Back</a></p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout (simulator)</title></head>
<body><h1>${html(plan)} plan</h1>
<p>${html(s.frequency)} commitment of ${html(String(s.amount))} ${html(s.currency)}, billed to ${html(s.name)} &lt;${html(s.email)}&gt;.</p>
<p><small>Simulated payment: no money moves.</small></p>
${body}
</body></html>`;
}

/**
 * The payment simulator's hosted checkout page on the public listener (Pay / Cancel redirect to the
 * session's success / cancel URL): mounted only while SIMULATOR_ENDPOINTS is on (the development
 * default), behind SIMULATOR_SECRET when one is set, and answering only while PAYMENTS_PROVIDER is
 * the simulator.
 */
export async function simulatorCheckoutRoutes(app: App) {
  app.get(
    '/checkout/:sessionId',
    {
      schema: {
        tags,
        summary: 'Simulator checkout page',
        description:
          'An HTML page with Pay and Cancel for an open simulator checkout. Unknown session → 404 BILL-003.',
        params: SessionParam,
        response: {
          200: { description: 'The page.', content: { 'text/html': { schema: Type.String() } } },
          ...errorResponses(),
        },
      },
    },
    async (req, reply) => {
      const session = await findSimulatorCheckout(app.ctx, req.params.sessionId);
      return sendPage(reply, 200, checkoutPage(session));
    },
  );

  app.post(
    '/checkout/:sessionId/pay',
    {
      schema: {
        tags,
        summary: 'Pay a simulator checkout',
        description:
          'Completes the session (the account moves to the paid plan and is credited the commitment, once) and ' +
          'redirects to its success URL. Canceled session → 409 BILL-004; unknown → 404 BILL-003.',
        params: SessionParam,
        response: { ...Redirect, ...errorResponses(409) },
      },
    },
    async (req, reply) => reply.redirect(await paySimulatorCheckout(app.ctx, req.params.sessionId), 303),
  );

  app.post(
    '/checkout/:sessionId/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a simulator checkout',
        description:
          'Cancels an open session and redirects to its cancel URL. Unknown session → 404 BILL-003.',
        params: SessionParam,
        response: { ...Redirect, ...errorResponses() },
      },
    },
    async (req, reply) => reply.redirect(await cancelSimulatorCheckout(app.ctx, req.params.sessionId), 303),
  );
}

/** Stripe's webhook on the public listener (signed with Stripe-Signature). */
export async function stripeWebhookRoutes(app: App) {
  // The webhook signature covers the exact bytes: this route keeps the JSON body as text.
  await app.register(async (raw) => {
    raw.removeContentTypeParser('application/json');
    raw.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
      (_req, body, done) => done(null, body),
    );
    raw.post<{ Body: string }>(
      '/v1/providers/stripe/webhook',
      {
        schema: {
          tags,
          summary: 'Stripe webhook',
          description:
            'Stripe events signed with `Stripe-Signature` (HMAC-SHA256, `t=…,v1=…`, 5 minutes tolerance). ' +
            '`checkout.session.completed` completes the checkout once (a replay credits nothing); ' +
            '`checkout.session.expired` cancels it; other events are ignored. Bad signature → 403 PROV-001.',
          response: {
            200: Envelope(Type.Object({ outcome: Type.String() })),
            ...errorResponses(),
          },
        },
      },
      async (req) => {
        const payload = typeof req.body === 'string' ? req.body : '';
        const signature = req.headers['stripe-signature'];
        const secret = app.ctx.config.payments.stripeWebhookSecret;
        if (typeof signature !== 'string' || !verifyStripeSignature(secret, payload, signature))
          fail('PROV-001');
        let event: unknown;
        try {
          event = JSON.parse(payload);
        } catch {
          fail('VAL-002');
        }
        return ok({ outcome: await handleStripeEvent(app.ctx, event) });
      },
    );
  });
}
