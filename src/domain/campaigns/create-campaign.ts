import type { Db } from '../../db/client.ts';
import { findCampaign, insertCampaign } from '../../db/queries/campaigns.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type CampaignInput, campaignFields } from './campaign-input.ts';
import { type Campaign, presentCampaigns } from './present-campaign.ts';

/**
 * The name of a campaign created without one (the published CampaignRequest has no `name`): its
 * creation time, e.g. "Campaign 2025-03-01 14:05 UTC".
 */
export function defaultCampaignName(now = new Date()): string {
  return `Campaign ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * Saves a new campaign. It runs when its `nextExecution` comes (the campaign-scheduler worker);
 * without one it stays a draft. Without a `name` it is named after its creation time.
 * Errors: LIST-001, GRP-001, VAL-001 (invalid schedule), CONT-002 (a contact of filters.contacts).
 */
export async function createCampaign(
  db: Db,
  accountId: string,
  input: CampaignInput,
  by: Actor,
  externalsUrl: string,
): Promise<Campaign> {
  const fields = await campaignFields(db, accountId, input, externalsUrl);
  const id = newId();
  const name = input.name?.trim() ? input.name : defaultCampaignName();
  await insertCampaign(db, accountId, { ...fields, name, id, by });
  const row = await findCampaign(db, accountId, id);
  return (await presentCampaigns(db, accountId, row ? [row] : []))[0];
}
