import { runDueCampaigns } from '../domain/campaigns/run-due-campaigns.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 20;

/**
 * Runs scheduled campaigns when their next execution comes: checks every second, at once again
 * after a full batch. A run is claimed with a lease, so a crashed worker's run is retried; the
 * retry first looks for the send job the crashed attempt may have committed (effectively once).
 */
export const campaignScheduler: WorkerTask = {
  name: 'campaign-scheduler',
  run: async (ctx) =>
    (await runDueCampaigns(ctx.db, BATCH, ctx.config.quietHoursEnabled, ctx.log)) === BATCH ? 0 : 1000,
};
