import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { exportContacts } from '../../domain/exports/export-contacts.ts';
import { exportMessages } from '../../domain/exports/export-messages.ts';
import {
  exportCampaignComparison,
  exportRecordReport,
  exportSummary,
} from '../../domain/exports/export-reports.ts';
import type { ReportKind } from '../../domain/reports/record-report.ts';
import { errorResponses, IdParam } from '../../schemas/common.ts';
import { ContactExportQuery, CSV_CELLS, CsvFile, MessageExportQuery } from '../../schemas/exports.ts';
import { ReportPeriodQuery } from '../../schemas/reports.ts';
import type { App } from '../types.ts';

/** Sends a CSV file as an attachment, streamed (never held whole), never cached. */
function sendCsv(reply: FastifyReply, file: { filename: string; stream: Readable }) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`)
    .header('cache-control', 'no-store')
    .send(file.stream);
}

const STREAMED =
  'Streamed: rows are read from the database 1,000 at a time as the client takes them (each batch as it is ' +
  'then). At most 2 exports of an account run at once in a process (429 RATE-001 for a third).';

/** The reports a record's CSV can be had of: path segment, path parameter, its 404. */
const RECORDS: [ReportKind, string, string, string][] = [
  ['campaigns', 'campaigns', 'campaignId', 'CAMP-001'],
  ['jobs', 'jobs', 'jobId', 'MSG-007'],
  ['drips', 'dripcampaigns', 'dripCampaignId', 'DRIP-001'],
  ['workflows', 'workflows', 'workflowId', 'WF-001'],
];

/** CSV exports: contacts (the list's filters), messages (a period), and each report. */
export async function exportRoutes(app: App) {
  app.get(
    '/v1/accounts/:accountId/contacts/export',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags: ['contacts'],
        summary: 'Export contacts as CSV',
        description:
          'The contacts the list’s filters match (`q`, `firstName`, `lastName`, `mobile`, `email`, `tags`, as ' +
          '`GET …/contacts`), oldest first: `id`, `firstName`, `lastName`, `mobile`, `country`, `email`, `tags` ' +
          '(joined with `;`), `optIn`, `optOut`, `blocked`, `created`, then one column per custom field. The ' +
          'import (`POST …/contacts/imports`) reads the names, mobile, country, e-mail, tags, `optIn`, `blocked` and ' +
          `the custom fields back (it would keep \`id\`, \`optOut\` and \`created\` as custom fields). ${CSV_CELLS} ${STREAMED}`,
        params: IdParam('accountId'),
        querystring: ContactExportQuery,
        response: { 200: CsvFile('The contacts as CSV.'), ...errorResponses() },
      },
    },
    async (req, reply) => sendCsv(reply, await exportContacts(app.ctx.db, req.params.accountId, req.query)),
  );

  app.get(
    '/v1/accounts/:accountId/messages/export',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['messages'],
        summary: 'Export messages as CSV',
        description:
          'The messages created in [`from`, `to`) (at most 366 days), optionally of one `status` and `direction`, ' +
          'in creation order: `id`, `created`, `direction`, `from`, `to`, `contactId`, `contactName` (only with the ' +
          '`contacts:read` scope, as the messages API shows contacts), `status`, `segments`, `encoding`, `price`, ' +
          `\`currency\`, \`errorCode\`, \`error\`, \`text\`, \`campaignId\`, \`jobId\`, \`sent\`, \`delivered\`. ${CSV_CELLS} ${STREAMED}`,
        params: IdParam('accountId'),
        querystring: MessageExportQuery,
        response: { 200: CsvFile('The messages as CSV.'), ...errorResponses() },
      },
    },
    async (req, reply) =>
      sendCsv(
        reply,
        await exportMessages(
          app.ctx.db,
          req.params.accountId,
          req.query,
          req.grant?.scopes.has('contacts:read') === true,
        ),
      ),
  );

  app.get(
    '/v1/accounts/:accountId/reports/summary/export',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['reports'],
        summary: 'Export the account’s report as CSV',
        description:
          'The figures of `GET …/reports/summary` for the period, one row per day (in the account’s time zone): ' +
          '`day`, `sent`, `delivered`, `failed`, `optedOut`, `replies`, `optOuts`, `clicks`, `spend`, `currency`.',
        params: IdParam('accountId'),
        querystring: ReportPeriodQuery,
        response: { 200: CsvFile('The report as CSV.'), ...errorResponses() },
      },
    },
    async (req, reply) => sendCsv(reply, await exportSummary(app.ctx.db, req.params.accountId, req.query)),
  );

  app.get(
    '/v1/accounts/:accountId/reports/campaigns/export',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['reports'],
        summary: 'Export the campaign comparison as CSV',
        description:
          'Every row of `GET …/reports/campaigns` for the period (all pages), latest first, with its columns. ' +
          `${CSV_CELLS} At most 2 exports of an account run at once in a process (429 RATE-001 for a third).`,
        params: IdParam('accountId'),
        querystring: ReportPeriodQuery,
        response: { 200: CsvFile('The campaigns compared, as CSV.'), ...errorResponses() },
      },
    },
    async (req, reply) =>
      sendCsv(reply, await exportCampaignComparison(app.ctx.db, req.params.accountId, req.query)),
  );

  for (const [kind, segment, param, notFound] of RECORDS) {
    app.get<{ Params: Record<string, string>; Querystring: typeof ReportPeriodQuery.static }>(
      `/v1/accounts/:accountId/reports/${segment}/:${param}/export`,
      {
        config: { scope: 'messages:read' },
        schema: {
          tags: ['reports'],
          summary: `Export the report of one ${segment === 'dripcampaigns' ? 'drip campaign' : segment.slice(0, -1)} as CSV`,
          description:
            `The figures of \`GET …/reports/${segment}/{${param}}\` for the period, one row per day, with the ` +
            `summary export’s columns. 404 ${notFound} for an unknown record or another account’s.`,
          params: IdParam('accountId', param),
          querystring: ReportPeriodQuery,
          response: { 200: CsvFile('The report as CSV.'), ...errorResponses() },
        },
      },
      async (req, reply) =>
        sendCsv(
          reply,
          await exportRecordReport(app.ctx.db, req.params.accountId, kind, req.params[param], req.query),
        ),
    );
  }
}
