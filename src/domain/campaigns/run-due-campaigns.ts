import type { Db } from '../../db/client.ts';
import { claimDueCampaigns } from '../../db/queries/campaigns.ts';
import { AppError } from '../../errors.ts';
import { SYSTEM } from '../actor.ts';
import { RUN_LEASE_SECONDS, runCampaign } from './run-campaign.ts';

const SCHEDULER = { ...SYSTEM, subSource: 'campaign-scheduler' };

/**
 * Claims up to `limit` due campaigns (next_execution passed, not paused, lease free or expired)
 * and runs each. Expected failures are recorded on their campaign and end its run; unexpected
 * ones leave the lease to expire (the run is retried then). Answers how many were claimed.
 */
export async function runDueCampaigns(
  db: Db,
  limit: number,
  quietHours: boolean,
  log: (msg: string) => void = () => {},
) {
  const due = await claimDueCampaigns(db, limit, RUN_LEASE_SECONDS);
  for (const c of due) {
    try {
      await runCampaign(db, c, SCHEDULER, quietHours);
    } catch (err) {
      if (!(err instanceof AppError)) log(`campaign ${c.id}: ${(err as Error).message}`);
    }
  }
  return due.length;
}
