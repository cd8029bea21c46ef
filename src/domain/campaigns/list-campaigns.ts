import type { Queryable } from '../../db/client.ts';
import { listCampaigns as queryCampaigns } from '../../db/queries/campaigns.ts';
import type { Page } from '../page.ts';
import { type Campaign, presentCampaigns } from './present-campaign.ts';

/** A page of the account's campaigns, newest first (optionally by partial, case-insensitive name). */
export async function listCampaigns(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<Page<Campaign>> {
  const { rows, total } = await queryCampaigns(db, accountId, filter, page);
  return { items: await presentCampaigns(db, accountId, rows), totalCount: total, ...page };
}
