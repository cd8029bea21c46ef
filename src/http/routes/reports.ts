import { compareCampaigns } from '../../domain/reports/compare-campaigns.ts';
import { type ReportKind, recordReport } from '../../domain/reports/record-report.ts';
import { reportSummary } from '../../domain/reports/summary.ts';
import { Collection, Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import {
  CampaignComparisonQuery,
  CampaignComparisonRow,
  Report,
  ReportPeriodQuery,
  ReportQuery,
} from '../../schemas/reports.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

/** The reports about one record: path segment, path parameter, what it is, its 404. */
const RECORDS: [ReportKind, string, string, string, string][] = [
  ['campaigns', 'campaigns', 'campaignId', 'a campaign (every run of it)', 'CAMP-001'],
  ['jobs', 'jobs', 'jobId', 'a send job (GET …/jobs/{jobId}; a bulk contact job sends nothing)', 'MSG-007'],
  [
    'drips',
    'dripcampaigns',
    'dripCampaignId',
    'a drip campaign (the texts its executions sent; once handed over to a workflow, later runs are the workflow’s)',
    'DRIP-001',
  ],
  [
    'workflows',
    'workflows',
    'workflowId',
    'a workflow (the texts its runs’ send-message nodes sent)',
    'WF-001',
  ],
];

/** Read-only figures for dashboards: the account, a campaign, a send, a drip or a workflow, in total and per day. */
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

  app.get(
    '/v1/accounts/:accountId/reports/campaigns',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['reports'],
        summary:
          'Campaigns side by side: sent, delivered, failed, opted out, replies, opt-outs, clicks, cost',
        description:
          'The campaigns with messages created in the period (default: the last 30 days up to now; at most 366 ' +
          'days), latest first by their first message of it, each with the totals its campaign report ' +
          '(`GET …/reports/campaigns/{campaignId}`) gives for the same period: replies and opt-outs only of its ' +
          'recipients and only after their first message of it, clicks on the links shortened in it, the price of ' +
          'its messages in the account’s currency. Paged.',
        params: IdParam('accountId'),
        querystring: CampaignComparisonQuery,
        response: { 200: Collection(CampaignComparisonRow), ...errorResponses() },
      },
    },
    async (req) => page(await compareCampaigns(app.ctx.db, req.params.accountId, req.query), (r) => r),
  );

  for (const [kind, segment, param, what, notFound] of RECORDS) {
    app.get<{ Params: Record<string, string>; Querystring: typeof ReportPeriodQuery.static }>(
      `/v1/accounts/:accountId/reports/${segment}/:${param}`,
      {
        config: { scope: 'messages:read' },
        schema: {
          tags: ['reports'],
          summary: `The figures of ${what.split(' (')[0]}, per day`,
          description:
            `The summary’s figures for ${what}: its messages, and its recipients’ replies and opt-outs` +
            (kind === 'campaigns' || kind === 'jobs'
              ? ' and the clicks on links shortened in it.'
              : ' (no clicks: its texts carry no link source of their own).') +
            ` Default period: the last 30 days up to now; at most 366 days. 404 ${notFound} for an unknown ` +
            'record or another account’s.',
          params: IdParam('accountId', param),
          querystring: ReportPeriodQuery,
          response: { 200: Envelope(Report), ...errorResponses() },
        },
      },
      async (req) =>
        ok(await recordReport(app.ctx.db, req.params.accountId, kind, req.params[param], req.query)),
    );
  }
}
