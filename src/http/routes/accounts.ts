import { getAccount, presentAccount } from '../../domain/accounts/get-account.ts';
import { updateAccount } from '../../domain/accounts/update-account.ts';
import { Account, AccountUpdateBody, Balance } from '../../schemas/accounts.ts';
import { Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import { ok } from '../respond.ts';
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

  app.put(
    '/v1/accounts/:accountId',
    {
      config: { scope: 'account:write' },
      schema: {
        tags: ['accounts'],
        summary: 'Change the account sending settings',
        description:
          'Changes how the account sends: `smartEncoding` (default true) and `validityPeriod` (seconds; `null` ' +
          'removes it). Fields left out stay as they are; unknown fields are refused (VAL-001). Answers the Account.',
        params: IdParam('accountId'),
        body: AccountUpdateBody,
        response: { 200: Envelope(Account), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        presentAccount(
          await updateAccount(
            app.ctx.db,
            req.params.accountId,
            {
              smartEncoding: req.body.smartEncoding,
              validityPeriod: req.body.validityPeriod as number | null | undefined,
            },
            req.actor,
          ),
        ),
      ),
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
