import { Readable } from 'node:stream';
import type { Db } from '../../db/client.ts';
import { fail } from '../../errors.ts';
import { type CampaignComparisonRow, compareCampaigns } from '../reports/compare-campaigns.ts';
import { type ReportKind, recordReport } from '../reports/record-report.ts';
import { reportPeriod, reportSummary } from '../reports/summary.ts';
import { csvStream, takeExportSlot } from './csv.ts';

const DAY_COLUMNS = [
  'day',
  'sent',
  'delivered',
  'failed',
  'optedOut',
  'replies',
  'optOuts',
  'clicks',
  'spend',
] as const;

type Report = Awaited<ReturnType<typeof reportSummary>>;

function daysCsv(report: Report, name: string): { filename: string; stream: Readable } {
  const rows = report.days.map((d) => [...DAY_COLUMNS.map((c) => d[c]), report.currency]);
  const filename = `${name}-${report.from.slice(0, 10)}-to-${report.to.slice(0, 10)}.csv`;
  return { filename, stream: csvStream([...DAY_COLUMNS, 'currency'], Readable.from(rows), () => {}) };
}

/**
 * The account's report (GET …/reports/summary) as CSV: one row per day of the period (days in the
 * account's time zone) with its figures and the currency of `spend`.
 */
export async function exportSummary(db: Db, accountId: string, period: { from?: string; to?: string }) {
  return daysCsv(await reportSummary(db, accountId, period), 'report');
}

/** One record's report (GET …/reports/{kind}/{id}) as CSV, one row per day; its 404 as the report's. */
export async function exportRecordReport(
  db: Db,
  accountId: string,
  kind: ReportKind,
  id: string,
  period: { from?: string; to?: string },
) {
  const singular = { campaigns: 'campaign', jobs: 'send', drips: 'drip', workflows: 'workflow' }[kind];
  return daysCsv(await recordReport(db, accountId, kind, id, period), `${singular}-report`);
}

const COMPARISON_COLUMNS: (keyof CampaignComparisonRow)[] = [
  'campaignId',
  'name',
  'firstSentAt',
  'sent',
  'delivered',
  'deliveryRate',
  'failed',
  'optedOut',
  'replies',
  'optOuts',
  'clicks',
  'spend',
  'currency',
];

/** Campaigns compared per page of the comparison's export. */
const COMPARISON_PAGE = 500;

/**
 * The campaign comparison (GET …/reports/campaigns) as CSV: every campaign that sent in the period,
 * latest first, read a page at a time. Counts as one of the account's exports (429 RATE-001).
 */
export async function exportCampaignComparison(
  db: Db,
  accountId: string,
  period: { from?: string; to?: string },
) {
  // The period is fixed once (a default `to` is now: every page counts the same period) and
  // checked (400) before an export slot is taken.
  const { from, to } = reportPeriod(period);
  const fixed = { from: from.toISOString(), to: to.toISOString() };
  const first = await compareCampaigns(db, accountId, { ...fixed, offset: 0, limit: COMPARISON_PAGE });
  const release = takeExportSlot(accountId);
  if (!release) fail('RATE-001', 'Exports of this account are running; try again when one has ended.');
  const rows = async function* () {
    let page = first;
    for (let offset = COMPARISON_PAGE; ; offset += COMPARISON_PAGE) {
      for (const r of page.items) yield COMPARISON_COLUMNS.map((c) => r[c]);
      if (page.items.length < COMPARISON_PAGE) return;
      page = await compareCampaigns(db, accountId, { ...fixed, offset, limit: COMPARISON_PAGE });
    }
  };
  return {
    filename: `campaigns-${new Date().toISOString().slice(0, 10)}.csv`,
    stream: csvStream(COMPARISON_COLUMNS, rows(), release),
  };
}
