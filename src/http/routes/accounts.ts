import { getAccount, presentAccount } from '../../domain/accounts/get-account.ts';
import type { KeywordRepliesUpdate } from '../../domain/accounts/keyword-replies.ts';
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
        summary: 'Change the account’s name, time zone, sending settings and keyword replies',
        description:
          'Changes the account’s `name` (1 to 100 characters on one line; it leads the opt-out and help replies), ' +
          '`timezone` (an IANA zone) and how it sends: `smartEncoding` (default true) and `validityPeriod` ' +
          '(seconds; `null` removes it); and `keywordReplies`, the texts answering STOP, START and HELP (each checked: ' +
          'not empty, at most 1,600 characters, the words carriers require, only merge fields a reply can fill; ' +
          '`null` restores the default). Fields left out stay as they are; unknown fields and bad values are ' +
          'refused (VAL-001). Answers the Account.',
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
              name: req.body.name,
              timezone: req.body.timezone,
              keywordReplies: req.body.keywordReplies as KeywordRepliesUpdate | undefined,
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
