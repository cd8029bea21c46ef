import type { Db } from '../../db/client.ts';
import { findCampaign, insertCampaign } from '../../db/queries/campaigns.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type CampaignInput, campaignFields } from './campaign-input.ts';
import { type Campaign, presentCampaigns } from './present-campaign.ts';

/**
 * Saves a new campaign. It runs when its `nextExecution` comes (the campaign-scheduler worker);
 * without one it stays a draft. Errors: LIST-001, GRP-001, VAL-001 (invalid schedule).
 */
export async function createCampaign(
  db: Db,
  accountId: string,
  input: CampaignInput & { name: string },
  by: Actor,
): Promise<Campaign> {
  const fields = await campaignFields(db, accountId, input);
  const id = newId();
  await insertCampaign(db, accountId, { ...fields, name: input.name, id, by });
  const row = await findCampaign(db, accountId, id);
  return (await presentCampaigns(db, accountId, row ? [row] : []))[0];
}
