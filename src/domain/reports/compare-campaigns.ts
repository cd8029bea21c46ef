import type { Db } from '../../db/client.ts';
import { findAccount } from '../../db/queries/accounts.ts';
import { campaignComparison } from '../../db/queries/campaign-comparison.ts';
import { fail } from '../../errors.ts';
import type { Page } from '../page.ts';
import { reportPeriod } from './summary.ts';

/** One campaign's row of the comparison, as the API answers it. */
export interface CampaignComparisonRow {
  campaignId: string;
  name: string | null;
  firstSentAt: string;
  sent: number;
  delivered: number;
  deliveryRate: number;
  failed: number;
  optedOut: number;
  replies: number;
  optOuts: number;
  clicks: number;
  spend: number;
  currency: string;
}

/**
 * The campaigns that sent in a period (default the last 30 days, at most REPORT_MAX_DAYS), side by
 * side, latest first: each with its campaign report's totals for the period (what came after each
 * recipient's first message of it). A page of them, each with the account's currency.
 */
export async function compareCampaigns(
  db: Db,
  accountId: string,
  q: { from?: string; to?: string; offset: number; limit: number },
): Promise<Page<CampaignComparisonRow>> {
  const { from, to } = reportPeriod(q);
  const account = await findAccount(db, accountId);
  if (!account) fail('AUTH-003');
  const { rows, total } = await campaignComparison(db, accountId, from, to, account.timezone, q);
  return {
    items: rows.map((r) => ({
      campaignId: r.campaignId,
      name: r.name,
      firstSentAt: r.firstAt.toISOString(),
      sent: r.sent,
      delivered: r.delivered,
      deliveryRate: r.sent > 0 ? Math.round((r.delivered / r.sent) * 10_000) / 10_000 : 0,
      failed: r.failed,
      optedOut: r.optedOut,
      replies: r.replies,
      optOuts: r.optOuts,
      clicks: r.clicks,
      spend: r.spend,
      currency: account.currency,
    })),
    totalCount: total,
    offset: q.offset,
    limit: q.limit,
  };
}
