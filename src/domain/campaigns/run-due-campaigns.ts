import type { Db } from '../../db/client.ts';
import { CAMPAIGN_CLAIM_SET, CAMPAIGN_QUEUE, type CampaignRow } from '../../db/queries/campaigns.ts';
import { AppError } from '../../errors.ts';
import { SYSTEM } from '../actor.ts';
import { type LeasedQueue, type Log, runLeased } from '../claim.ts';
import type { SendSettings } from '../send/accept/send-messages.ts';
import { RUN_LEASE_SECONDS, runCampaign } from './run-campaign.ts';

const SCHEDULER = { ...SYSTEM, subSource: 'campaign-scheduler' };

/** The campaign queue as the scheduler works it: an unexpected failure is retried after 5 s, 10 s … 10 min. */
const CAMPAIGNS: LeasedQueue<CampaignRow> = {
  name: 'campaign-scheduler',
  spec: CAMPAIGN_QUEUE,
  leaseSeconds: RUN_LEASE_SECONDS,
  backoff: { baseMs: 5000, maxMs: 10 * 60_000 },
  key: (c) => [c.account_id, c.id],
  attempts: (c) => c.attempts,
  describe: (c) => `campaign ${c.id}`,
  set: CAMPAIGN_CLAIM_SET,
  returning: 't.*, NULL::jsonb AS last_job',
};

/**
 * Claims up to `limit` due campaigns (next_execution passed, not paused, lease free or expired:
 * the claim helper) and runs each. Expected failures are recorded on their campaign and end its
 * run; unexpected ones are logged and the run retried after the backoff. Answers how many were
 * claimed. Sends apply the service's `settings` (prices, EXTERNALS_URL).
 */
export async function runDueCampaigns(
  db: Db,
  limit: number,
  quietHours: boolean,
  log: Log,
  settings: SendSettings,
) {
  return runLeased(db, log, CAMPAIGNS, limit, async (c) => {
    try {
      await runCampaign(db, c, SCHEDULER, settings, quietHours);
    } catch (err) {
      // Recorded on the campaign (last_error), its run ended: not a worker failure.
      if (!(err instanceof AppError)) throw err;
    }
  });
}
