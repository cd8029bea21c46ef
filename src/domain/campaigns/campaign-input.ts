import type { Queryable } from '../../db/client.ts';
import type { CampaignFields, CampaignFilters, CampaignMedia } from '../../db/queries/campaigns.ts';
import { findContacts } from '../../db/queries/contacts.ts';
import { getGroup } from '../../db/queries/groups.ts';
import { fail } from '../../errors.ts';
import { checkMediaUrls } from '../../messaging/media-url.ts';
import { isId } from '../../util/ids.ts';
import { requireList } from '../lists/get-list.ts';
import { type RecipientConditions, recipientSelection, searchText } from '../send/accept/recipient-filter.ts';
import { firstCronRun } from './schedule-rule.ts';

/** What a caller gives to create or update a campaign (the Campaign shape's writable fields). */
export interface CampaignInput {
  name?: string;
  description?: string | null;
  fieldMappings?: { attribute?: string; column?: string; mandatory?: boolean }[];
  filters?: { list?: { id: string } | null; contacts?: string[] } & Omit<CampaignFilters, 'tags'> &
    RecipientConditions;
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

/** The contacts a campaign names by id, each once: VAL-001 for a malformed id, CONT-002 for one not in the account. */
async function namedContacts(db: Queryable, accountId: string, ids: string[]): Promise<string[]> {
  const bad = ids.findIndex((id) => !isId(id));
  if (bad >= 0)
    fail('VAL-001', `\`filters.contacts[${bad}]\` is not a contact id: ${JSON.stringify(ids[bad])}.`);
  const unique = [...new Set(ids)];
  const found = new Set((await findContacts(db, accountId, unique)).map((c) => c.id));
  const missing = unique.find((id) => !found.has(id));
  if (missing) fail('CONT-002', `Contact ${missing} not found.`);
  return unique;
}

/**
 * Checks the references of a campaign input (LIST-001 unknown list, GRP-001 unknown group) and
 * turns it into stored fields. A `schedule.cron` (validated, in `schedule.timezone`) makes the campaign
 * recurring: without an explicit nextExecution its next run is the schedule's next firing. Media
 * URLs are checked against `externalsUrl` (the service's EXTERNALS_URL: its own files are accepted).
 */
export async function campaignFields(
  db: Queryable,
  accountId: string,
  input: CampaignInput,
  externalsUrl: string,
): Promise<CampaignFields> {
  const cron = input.schedule?.cron;
  const firstRun = cron ? firstCronRun(cron, input.schedule?.timezone) : undefined;
  const list = input.filters?.list;
  if (list) await requireList(db, accountId, list.id);
  const group = input.phoneNumberFilter === null ? null : input.phoneNumberFilter?.group;
  if (group && !(isId(group.id) && (await getGroup(db, accountId, group.id)))) fail('GRP-001');

  checkMediaUrls(input.media, externalsUrl);

  // The published form's `contacts` (ids) are recipients of their own, beside the list and conditions.
  const { contacts: named, ...f } = input.filters ?? {};
  const contacts = named === undefined ? undefined : await namedContacts(db, accountId, named);
  const given = input.filters !== undefined;
  const hasNamed = (contacts?.length ?? 0) > 0;
  if (hasNamed && f.all === true)
    fail('VAL-001', '`filters.all` selects every contact: it cannot be combined with `filters.contacts`.');
  // The selector rule of every send (recipientSelection): `{list: null}` alone clears the list, and
  // named contacts alone need no condition (they are recipients as a list is).
  const keys = Object.keys(f);
  const clearsListOnly = f.list === null && keys.length === 1;
  const conditionsGiven = keys.some((k) => !(k === 'list' && f.list === null));
  const selection =
    given && !clearsListOnly && (conditionsGiven || !hasNamed)
      ? recipientSelection(f, 'filters', Boolean(f.list) || hasNamed)
      : undefined;
  let filters: CampaignFilters | undefined;
  if (selection?.all) {
    // Everyone: the stored list, conditions and named contacts go.
    filters = { all: true, attributes: [], tags: [], q: null, contacts: [] };
  } else if (
    f.attributes !== undefined ||
    f.tags !== undefined ||
    f.q !== undefined ||
    f.list ||
    contacts !== undefined
  ) {
    filters = { all: false };
    if (f.attributes !== undefined) filters.attributes = f.attributes;
    // A tag given as a plain string (the published form) is a visible tag.
    if (f.tags !== undefined)
      filters.tags = f.tags.map((t) => (typeof t === 'string' ? { tag: t, visible: true } : t));
    // A blank `q` clears the stored one.
    if (f.q !== undefined) filters.q = searchText(f.q) ?? null;
    if (contacts !== undefined) filters.contacts = contacts;
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
