import type { Db } from '../../db/client.ts';
import { updateCampaign as updateRow } from '../../db/queries/campaigns.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type CampaignInput, campaignFields } from './campaign-input.ts';
import { getCampaign } from './get-campaign.ts';
import type { Campaign } from './present-campaign.ts';

/**
 * Changes the given fields of a campaign (the others stay; `filters.attributes`,
 * `filters.tags` and `filters.q` each replace their own part). A `nextExecution` in the past runs it at once.
 * Errors: CAMP-001, LIST-001, GRP-001, VAL-001 (invalid schedule).
 */
export async function updateCampaign(
  db: Db,
  accountId: string,
  campaignId: string,
  input: CampaignInput,
  by: Actor,
  externalsUrl: string,
): Promise<Campaign> {
  if (!isId(campaignId)) fail('CAMP-001');
  const fields = await campaignFields(db, accountId, input, externalsUrl);
  if (!(await updateRow(db, accountId, campaignId, fields, by))) fail('CAMP-001');
  return getCampaign(db, accountId, campaignId);
}
