import type { Queryable } from '../../db/client.ts';
import type { CampaignFields, CampaignFilters, CampaignMedia } from '../../db/queries/campaigns.ts';
import { getGroup } from '../../db/queries/groups.ts';
import { fail } from '../../errors.ts';
import { checkMediaUrls } from '../../messaging/media-url.ts';
import { nextCronRun } from '../../messaging/schedule.ts';
import {
  type RecipientConditions,
  recipientSelection,
  searchText,
} from '../../messaging/send/accept/recipient-filter.ts';
import { isId } from '../../util/ids.ts';
import { requireList } from '../lists/get-list.ts';

/** What a caller gives to create or update a campaign (the Campaign shape's writable fields). */
export interface CampaignInput {
  name?: string;
  description?: string | null;
  fieldMappings?: { attribute?: string; column?: string; mandatory?: boolean }[];
  filters?: { list?: { id: string } | null } & CampaignFilters & RecipientConditions;
  media?: CampaignMedia[];
  phoneNumberFilter?: { group?: { id: string } } | null;
  schedule?: { frequency?: string; timezone?: string; cron?: string } | null;
  nextExecution?: string | null;
  reporting?: { destination?: string; when?: string; delay?: string; unit?: string } | null;
  template?: string;
  trigger?: { code: 'M' | 'S' | 'FU'; name?: string };
  /** true or a timestamp: paused; false or null: running. */
  paused?: boolean | string | null;
}

/**
 * Checks the references of a campaign input (LIST-001 unknown list, GRP-001 unknown group) and
 * turns it into stored fields. A `schedule.cron` (validated, in `schedule.timezone`) makes the campaign
 * recurring: without an explicit nextExecution its next run is the schedule's next firing.
 */
export async function campaignFields(
  db: Queryable,
  accountId: string,
  input: CampaignInput,
): Promise<CampaignFields> {
  const cron = input.schedule?.cron;
  const firstRun = cron ? nextCronRun(cron, input.schedule?.timezone) : undefined;
  const list = input.filters?.list;
  if (list) await requireList(db, accountId, list.id);
  const group = input.phoneNumberFilter === null ? null : input.phoneNumberFilter?.group;
  if (group && !(isId(group.id) && (await getGroup(db, accountId, group.id)))) fail('GRP-001');

  checkMediaUrls(input.media);

  // The selector rule of every send (recipientSelection); `{list: null}` alone clears the list.
  const f = input.filters;
  const clearsListOnly = f !== undefined && f.list === null && Object.keys(f).length === 1;
  const selection = f && !clearsListOnly ? recipientSelection(f, 'filters', Boolean(f.list)) : undefined;
  let filters: CampaignFilters | undefined;
  if (selection?.all) {
    // Everyone: the stored list and conditions go.
    filters = { all: true, attributes: [], tags: [], q: null };
  } else if (f && (f.attributes !== undefined || f.tags !== undefined || f.q !== undefined || f.list)) {
    filters = { all: false };
    if (f.attributes !== undefined) filters.attributes = f.attributes;
    if (f.tags !== undefined) filters.tags = f.tags;
    // A blank `q` clears the stored one.
    if (f.q !== undefined) filters.q = searchText(f.q) ?? null;
  }
  return {
    name: input.name,
    description: input.description,
    fieldMappings: input.fieldMappings,
    listId: selection?.all ? null : list === undefined ? undefined : (list?.id ?? null),
    filters,
    media: input.media,
    groupId: input.phoneNumberFilter === undefined ? undefined : (group?.id ?? null),
    schedule: input.schedule,
    reporting: input.reporting,
    template: input.template,
    triggerCode: input.trigger?.code,
    nextExecution:
      input.nextExecution === undefined
        ? firstRun
        : input.nextExecution === null
          ? null
          : new Date(input.nextExecution),
    paused: input.paused === undefined ? undefined : input.paused !== false && input.paused !== null,
  };
}
