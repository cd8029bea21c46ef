import type { Queryable } from '../../db/client.ts';
import { findCampaign } from '../../db/queries/campaigns.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Campaign, presentCampaigns } from './present-campaign.ts';

/** One of the account's campaigns; none (or another account's, or a non-id) is 404 CAMP-001. */
export async function getCampaign(db: Queryable, accountId: string, campaignId: string): Promise<Campaign> {
  const row = isId(campaignId) ? await findCampaign(db, accountId, campaignId) : undefined;
  return (await presentCampaigns(db, accountId, [row ?? fail('CAMP-001')]))[0];
}
