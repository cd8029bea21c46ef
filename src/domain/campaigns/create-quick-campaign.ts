import type { Db } from '../../db/client.ts';
import { deleteCampaign, findCampaign, insertCampaign } from '../../db/queries/campaigns.ts';
import { findSendJob } from '../../db/queries/send-jobs.ts';
import { AppError, fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import type { SendSettings } from '../send/accept/send-messages.ts';
import { campaignFields } from './campaign-input.ts';
import { type Campaign, type Job, presentCampaigns, presentJob } from './present-campaign.ts';
import { RUN_LEASE_SECONDS, runCampaign } from './run-campaign.ts';

/** The body of POST …/quickcampaigns. */
export interface QuickCampaignInput {
  name: string;
  groupId: string;
  listId: string;
  message: { message: string; media?: { url: string; type?: string; name?: string; filename?: string }[] };
  sendAt?: string;
}

/**
 * Creates a campaign for a list and a sender group and runs it: now (trigger M) when sendAt is
 * absent or not in the future, answering its job; else at sendAt (trigger S, job null) through the
 * campaign-scheduler worker. A send refused now (ACCT-002, GRP-003, MSG-002…) leaves no campaign
 * behind. Errors: MSG-003 empty message, LIST-001, GRP-001.
 */
export async function createQuickCampaign(
  db: Db,
  accountId: string,
  input: QuickCampaignInput,
  by: Actor,
  settings: SendSettings,
  quietHours: boolean,
): Promise<{ campaign: Campaign; job?: Job }> {
  if (input.message.message.trim() === '') fail('MSG-003');
  const fields = await campaignFields(
    db,
    accountId,
    {
      name: input.name,
      filters: { list: { id: input.listId } },
      phoneNumberFilter: { group: { id: input.groupId } },
      template: input.message.message,
      media: input.message.media ?? [],
    },
    settings.externalsUrl,
  );
  const sendAt = input.sendAt === undefined ? undefined : new Date(input.sendAt);
  const later = sendAt !== undefined && sendAt.getTime() > Date.now();
  const id = newId();
  await insertCampaign(db, accountId, {
    ...fields,
    id,
    name: input.name,
    triggerCode: later ? 'S' : 'M',
    nextExecution: later ? sendAt : undefined,
    claimForSeconds: later ? undefined : RUN_LEASE_SECONDS,
    by,
  });
  const present = async () => {
    const row = await findCampaign(db, accountId, id);
    return (await presentCampaigns(db, accountId, row ? [row] : []))[0];
  };
  if (later) return { campaign: await present() };

  const row = await findCampaign(db, accountId, id);
  let jobId: string;
  try {
    jobId = await runCampaign(db, row ?? fail('CAMP-001'), by, settings, quietHours);
  } catch (err) {
    if (err instanceof AppError) await deleteCampaign(db, accountId, id);
    throw err;
  }
  const job = await findSendJob(db, accountId, jobId);
  return job ? { campaign: await present(), job: presentJob(job) } : { campaign: await present() };
}
