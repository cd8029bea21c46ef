import { reportSummary } from '../../domain/reports/summary.ts';
import { ok } from '../respond.ts';
import { Envelope, errorResponses, IdParam } from '../schemas/common.ts';
import { Report, ReportQuery } from '../schemas/reports.ts';
import type { App } from '../types.ts';

/** Read-only figures for dashboards: the account, a campaign or a send, in total and per day. */
export async function reportRoutes(app: App) {
  app.get(
    '/v1/accounts/:accountId/reports/summary',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['reports'],
        summary: 'Sent, delivered, failed, replies, opt-outs, clicks and spend, per day',
        description:
          'Default period: the last 30 days up to now; at most 366 days. Days are counted in the account’s time ' +
          'zone. With `campaignId` or `jobId`, only that campaign’s or send’s messages and its recipients’ replies, ' +
          'opt-outs and link clicks. Also the balance and the messages waiting to be dispatched now.',
        params: IdParam('accountId'),
        querystring: ReportQuery,
        response: { 200: Envelope(Report), ...errorResponses() },
      },
    },
    async (req) => ok(await reportSummary(app.ctx.db, req.params.accountId, req.query)),
  );
}
