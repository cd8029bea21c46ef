import type { Db } from '../../db/client.ts';
import { accountNow, type DayFigures, dailyFigures, type ReportScope } from '../../db/queries/reports.ts';
import { fail } from '../../errors.ts';

/** The longest range one report covers. */
export const REPORT_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

type Totals = Omit<DayFigures, 'day'>;

function total(days: DayFigures[]): Totals {
  const t: Totals = {
    sent: 0,
    delivered: 0,
    failed: 0,
    optedOut: 0,
    replies: 0,
    optOuts: 0,
    clicks: 0,
    spend: 0,
  };
  for (const d of days) {
    t.sent += d.sent;
    t.delivered += d.delivered;
    t.failed += d.failed;
    t.optedOut += d.optedOut;
    t.replies += d.replies;
    t.optOuts += d.optOuts;
    t.clicks += d.clicks;
    t.spend += d.spend;
  }
  t.spend = Math.round(t.spend * 10_000) / 10_000;
  return t;
}

/**
 * A report's period from the query: `to` (default now) and `from` (default 30 days before `to`).
 * Not timestamps, `from` not before `to`, or longer than REPORT_MAX_DAYS → 400 VAL-001.
 */
export function reportPeriod(input: { from?: string; to?: string }): { from: Date; to: Date } {
  const to = input.to ? new Date(input.to) : new Date();
  const from = input.from ? new Date(input.from) : new Date(to.getTime() - 30 * DAY_MS);
  if (Number.isNaN(to.getTime()) || Number.isNaN(from.getTime()))
    fail('VAL-001', '`from` and `to` must be timestamps.');
  if (from >= to) fail('VAL-001', '`from` must be before `to`.');
  if (to.getTime() - from.getTime() > REPORT_MAX_DAYS * DAY_MS)
    fail('VAL-001', `A report covers at most ${REPORT_MAX_DAYS} days.`);
  return { from, to };
}

/**
 * The figures of a period (default: the last 30 days up to now), in total and per day in the
 * account's time zone, with what is true now (balance, messages waiting). `campaignId`, `jobId`,
 * `dripId` or `workflowId` narrow it to one campaign's, send's, drip's or workflow's messages (and
 * the replies, opt-outs and clicks of its recipients and links). A range past REPORT_MAX_DAYS or ending before it starts → 400 VAL-001.
 */
export async function reportSummary(
  db: Db,
  accountId: string,
  input: { from?: string; to?: string } & ReportScope,
) {
  const { from, to } = reportPeriod(input);
  const now = await accountNow(db, accountId, input);
  if (!now) fail('AUTH-003');
  const days = await dailyFigures(db, accountId, from, to, now.timezone, input);
  const totals = total(days);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    timezone: now.timezone,
    ...(input.campaignId ? { campaignId: input.campaignId } : {}),
    ...(input.jobId ? { jobId: input.jobId } : {}),
    ...(input.dripId ? { dripId: input.dripId } : {}),
    ...(input.workflowId ? { workflowId: input.workflowId } : {}),
    totals: {
      ...totals,
      deliveryRate: totals.sent > 0 ? Math.round((totals.delivered / totals.sent) * 10_000) / 10_000 : 0,
    },
    balance: now.balance,
    currency: now.currency,
    queued: now.queued,
    days,
  };
}
