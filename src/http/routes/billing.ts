import { createCheckout } from '../../domain/billing/create-checkout.ts';
import { disableAutoTopup } from '../../domain/billing/disable-auto-topup.ts';
import { getAutoTopup } from '../../domain/billing/get-auto-topup.ts';
import { listTransactions } from '../../domain/billing/list-transactions.ts';
import { setAutoTopup } from '../../domain/billing/set-auto-topup.ts';
import {
  AutoTopup,
  AutoTopupBody,
  CheckoutBody,
  CheckoutQuery,
  CheckoutUrl,
  Transaction,
  TransactionListQuery,
} from '../../schemas/billing.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['billing'];
const params = IdParam('accountId');

export async function billingRoutes(app: App) {
  const base = '/v1/accounts/:accountId';

  app.post(
    `${base}/checkout`,
    {
      config: { scope: 'billing:write' },
      schema: {
        tags,
        summary: 'Create a checkout session',
        description:
          'Opens a checkout to move the account from trial to a paid plan and answers its URL (`data`). Paying ' +
          'moves the account to the plan, saves the billing details and payment method, and credits the ' +
          '`commitment` to the balance, once. `successUrl` / `cancelUrl` are where the payer lands afterwards. ' +
          'Commitment below the plan minimum → 400 BILL-001 (above the maximum → 400); payment provider failure → ' +
          '502 BILL-005; payments not enabled on this server (`PAYMENTS_PROVIDER=none`, the production default) → ' +
          '409 BILL-006.',
        params,
        querystring: CheckoutQuery,
        body: CheckoutBody,
        response: { 200: Envelope(CheckoutUrl), ...errorResponses(409, 502) },
      },
    },
    async (req) => ok(await createCheckout(app.ctx, req.params.accountId, req.body, req.query, req.actor)),
  );

  app.get(
    `${base}/autotopup`,
    {
      config: { scope: 'account:read' },
      schema: {
        tags,
        summary: 'Get auto top-up',
        description:
          'The settings (disabled with null settings when never set), the saved payment method and recent top-ups.',
        params,
        response: { 200: Envelope(AutoTopup), ...errorResponses() },
      },
    },
    async (req) => ok(await getAutoTopup(app.ctx.db, req.params.accountId)),
  );

  app.put(
    `${base}/autotopup`,
    {
      config: { scope: 'billing:write' },
      schema: {
        tags,
        summary: 'Enable auto top-up',
        description:
          'When the balance falls below `threshold`, `amount` is charged to the payment method of the last completed ' +
          'checkout and credited (one top-up per dip below the threshold, at most `maxPerMonth` a month). Without a ' +
          'saved payment method → 409 BILL-002.',
        params,
        body: AutoTopupBody,
        response: { 200: Envelope(AutoTopup), ...errorResponses(409) },
      },
    },
    async (req) => ok(await setAutoTopup(app.ctx.db, req.params.accountId, req.body, req.actor)),
  );

  app.delete(
    `${base}/autotopup`,
    {
      config: { scope: 'billing:write' },
      schema: {
        tags,
        summary: 'Disable auto top-up',
        description: 'No further top-up starts; disabling it when it is off succeeds too.',
        params,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await disableAutoTopup(app.ctx.db, req.params.accountId, req.actor);
      return { success: true as const };
    },
  );

  app.get(
    `${base}/billing/transactions`,
    {
      config: { scope: 'account:read' },
      schema: {
        tags,
        summary: 'List billing transactions',
        description:
          'Newest first: credits (`checkout`, `topup`) with the balance after them, and debits (`send`, `message`) ' +
          'for what sends charged. `type` keeps one kind.',
        params,
        querystring: TransactionListQuery,
        response: { 200: Collection(Transaction), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, type } = req.query;
      return page(
        await listTransactions(app.ctx.db, req.params.accountId, type ? [type] : undefined, {
          offset,
          limit,
        }),
        (t) => t,
      );
    },
  );
}
