import { getCall } from '../../domain/calls/get-call.ts';
import { listCalls } from '../../domain/calls/list-calls.ts';
import { Call, CallListQuery, CallParams } from '../../schemas/calls.ts';
import { Collection, Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['calls'];

export async function callRoutes(app: App) {
  const base = '/v1/accounts/:accountId/calls';

  app.get(
    base,
    {
      config: { scope: 'calls:read' },
      schema: {
        tags,
        summary: 'List calls',
        description:
          'Newest first. Filters: `direction`, `status`, `contactId`, and the creation range `from` (inclusive) ' +
          '… `to` (exclusive).',
        params: IdParam('accountId'),
        querystring: CallListQuery,
        response: { 200: Collection(Call), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, direction, status, contactId, from, to } = req.query;
      const filter = {
        direction,
        status,
        contactId,
        from: from === undefined ? undefined : new Date(from),
        to: to === undefined ? undefined : new Date(to),
      };
      return page(await listCalls(app.ctx.db, req.params.accountId, filter, { offset, limit }), (c) => c);
    },
  );

  app.get(
    `${base}/:callId`,
    {
      config: { scope: 'calls:read' },
      schema: {
        tags,
        summary: 'Get a call',
        params: CallParams,
        response: { 200: Envelope(Call), ...errorResponses() },
      },
    },
    async (req) => ok(await getCall(app.ctx.db, req.params.accountId, req.params.callId)),
  );
}
