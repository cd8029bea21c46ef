import { getAccount, presentAccount } from '../../domain/accounts/get-account.ts';
import { ok } from '../respond.ts';
import { Account, Balance } from '../schemas/accounts.ts';
import { Envelope, errorResponses, IdParam } from '../schemas/common.ts';
import type { App } from '../types.ts';

export async function accountRoutes(app: App) {
  app.get(
    '/v1/accounts/:accountId',
    {
      config: { scope: 'account:read' },
      schema: {
        tags: ['accounts'],
        summary: 'Get the account',
        params: IdParam('accountId'),
        response: { 200: Envelope(Account), ...errorResponses() },
      },
    },
    async (req) => ok(presentAccount(await getAccount(app.ctx.db, req.params.accountId))),
  );

  app.get(
    '/v1/accounts/:accountId/balance',
    {
      config: { scope: 'account:read' },
      schema: {
        tags: ['accounts'],
        summary: 'Get the account balance',
        params: IdParam('accountId'),
        response: { 200: Envelope(Balance), ...errorResponses() },
      },
    },
    async (req) => {
      const a = await getAccount(app.ctx.db, req.params.accountId);
      return ok({ balance: a.balance, currency: a.currency });
    },
  );
}
