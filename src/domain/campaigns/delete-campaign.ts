import type { Queryable } from '../../db/client.ts';
import { deleteCampaign as deleteRow } from '../../db/queries/campaigns.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/**
 * Deletes a campaign; 404 CAMP-001 when the account has none by that id. Its sent messages and
 * jobs stay (they keep the campaign id).
 */
export async function deleteCampaign(db: Queryable, accountId: string, campaignId: string): Promise<void> {
  if (!isId(campaignId) || !(await deleteRow(db, accountId, campaignId))) fail('CAMP-001');
}
