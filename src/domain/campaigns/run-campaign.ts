import type { Db } from '../../db/client.ts';
import { type CampaignRow, campaignJobSince, finishCampaignRun } from '../../db/queries/campaigns.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { type SendSettings, sendMessages } from '../send/accept/send-messages.ts';
import { nextCampaignRun } from './schedule-rule.ts';

/** How long a claimed run is a worker's before another may take it over (seconds). */
export const RUN_LEASE_SECONDS = 600;

/**
 * Runs a claimed campaign once: sends its template to its recipients through sendMessages and
 * records the job. If an earlier claim of the same run already committed a send (its job exists
 * since run_started_at), that job is recorded instead of sending again. An expected failure
 * (e.g. ACCT-002, LIST-001, GRP-003) is recorded on the campaign and ends the run, then rethrown;
 * anything else is retried by the scheduler after a backoff (or, if the worker died, when the lease expires). With `quietHours` (QUIET_HOURS_ENABLED)
 * a run that falls in quiet hours is queued and charged now and dispatched when they end. The send
 * applies the service's `settings` (prices, EXTERNALS_URL).
 */
export async function runCampaign(
  db: Db,
  c: CampaignRow,
  by: Actor,
  settings: SendSettings,
  quietHours: boolean,
): Promise<string> {
  // A recurring campaign's next run: the schedule's next firing after now, at least a minute after
  // this run was due (a stored schedule was valid when saved; one saved before sub-minute schedules
  // were refused runs once a minute).
  const cron = typeof c.schedule?.cron === 'string' && c.schedule.cron ? c.schedule.cron : undefined;
  const timezone = typeof c.schedule?.timezone === 'string' ? c.schedule.timezone : undefined;
  const next = cron ? nextCampaignRun(cron, timezone, c.next_execution) : null;
  const already = c.run_started_at
    ? await campaignJobSince(db, c.account_id, c.id, c.run_started_at)
    : undefined;
  if (already) {
    await finishCampaignRun(db, c.account_id, c.id, { jobId: already }, next, c.claim_token);
    return already;
  }
  const filters = c.filters ?? {};
  const hasConditions =
    (filters.tags?.length ?? 0) > 0 || (filters.attributes?.length ?? 0) > 0 || Boolean(filters.q);
  // Every contact only when stored so explicitly (filters.all); without it a campaign with no list and
  // no condition has no recipients (MSG-002).
  const everyone = filters.all === true && !hasConditions && !c.list_id;
  try {
    const { jobId } = await sendMessages(
      db,
      c.account_id,
      {
        listId: c.list_id ?? undefined,
        // Contacts the campaign names by id (filters.contacts), beside its list and conditions.
        contacts: filters.contacts?.length ? filters.contacts.map((id) => ({ id })) : undefined,
        filters: everyone
          ? { all: true }
          : hasConditions
            ? {
                tags: filters.tags ?? [],
                attributes: filters.attributes ?? [],
                q: filters.q ?? undefined,
                listId: c.list_id ?? undefined,
              }
            : undefined,
        phoneNumberFilter: c.group_id ? { group: { id: c.group_id } } : undefined,
        template: c.template,
        media: c.media,
        type: c.media.length > 0 ? 'MMS' : 'SMS',
        campaignId: c.id,
        quietHours,
      },
      by,
      settings,
    );
    await finishCampaignRun(db, c.account_id, c.id, { jobId }, next, c.claim_token);
    return jobId;
  } catch (err) {
    if (err instanceof AppError) {
      await finishCampaignRun(
        db,
        c.account_id,
        c.id,
        {
          error: { code: err.code, description: err.message },
        },
        next,
        c.claim_token,
      );
    }
    throw err;
  }
}
