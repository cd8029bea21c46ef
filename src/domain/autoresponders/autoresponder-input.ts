import type { Queryable } from '../../db/client.ts';
import type {
  AutoresponderFields,
  AutoresponderMedia,
  AutoresponderRow,
  AutoresponderTriggerType,
} from '../../db/queries/autoresponders.ts';
import { getGroup } from '../../db/queries/groups.ts';
import { fail } from '../../errors.ts';
import { matchKeyOf } from '../../messaging/keywords.ts';
import { checkMediaUrls } from '../../messaging/media-url.ts';
import { MAX_KEYWORDS } from '../../schemas/limits.ts';
import { isId } from '../../util/ids.ts';

/** Most autoresponders one account may hold: every inbound text is read against the active ones. */
export const MAX_AUTORESPONDERS = 100;

/** An autoresponder as a create or update request gives it (absent: unchanged on update). */
export interface AutoresponderInput {
  name?: string;
  group?: { id: string } | null;
  trigger?: { type: AutoresponderTriggerType; keywords?: string[] };
  message?: { message: string; media?: AutoresponderMedia[] };
  active?: boolean;
  priority?: number;
}

/**
 * The keywords as stored, trimmed, and their match keys: each must be valid (matchKeyOf, else
 * AUTO-003 naming it); duplicates after folding are dropped (the first spelling kept).
 */
export function normaliseKeywords(keywords: string[]): { keywords: string[]; keys: string[] } {
  const keys: string[] = [];
  const out: string[] = [];
  for (const raw of keywords) {
    const m = matchKeyOf(raw);
    if ('error' in m) fail('AUTO-003', m.error);
    if (keys.includes(m.key)) continue;
    keys.push(m.key);
    out.push(raw.trim());
  }
  if (out.length > MAX_KEYWORDS) fail('AUTO-003', `At most ${MAX_KEYWORDS} keywords.`);
  return { keywords: out, keys };
}

/**
 * The fields to store from a request over the current record (none on create): a keywords trigger
 * needs at least one keyword (AUTO-002); an `outsideOfficeHours` trigger takes none and needs a
 * group that keeps office hours (`officeHours.active`), since the hours are the group's (AUTO-002);
 * a group must be the account's (GRP-001); media URLs must be public http(s) or the service's own
 * files under `externalsUrl` (MSG-009).
 */
export async function resolveFields(
  db: Queryable,
  accountId: string,
  input: AutoresponderInput,
  externalsUrl: string,
  current?: AutoresponderRow,
): Promise<AutoresponderFields> {
  const name = input.name ?? current?.name;
  const trigger =
    input.trigger ?? (current ? { type: current.trigger_type, keywords: current.keywords } : undefined);
  const message = input.message ?? (current ? { message: current.message, media: current.media } : undefined);
  if (name === undefined || trigger === undefined || message === undefined) {
    fail('VAL-001', 'An autoresponder needs `name`, `trigger` and `message`.');
  }
  if (input.message) checkMediaUrls(input.message.media, externalsUrl);

  let groupId = current?.group_id ?? null;
  if (input.group !== undefined) {
    groupId = input.group === null ? null : input.group.id.toLowerCase();
  }
  const group = groupId ? (isId(groupId) ? await getGroup(db, accountId, groupId) : undefined) : null;
  if (group === undefined) fail('GRP-001', `The account has no group with id "${input.group?.id}".`);

  let keywords: string[] = [];
  let keywordKeys: string[] = [];
  if (trigger.type === 'keywords') {
    ({ keywords, keys: keywordKeys } = normaliseKeywords(trigger.keywords ?? []));
    if (keywords.length === 0) fail('AUTO-002', 'A `keywords` trigger needs at least one keyword.');
  } else {
    if (input.trigger && (trigger.keywords?.length ?? 0) > 0) {
      fail('AUTO-002', 'An `outsideOfficeHours` trigger takes no keywords.');
    }
    if (!group) {
      fail('AUTO-002', 'An `outsideOfficeHours` trigger needs a `group`: the office hours are the group’s.');
    }
    const hours = group.office_hours as { active?: boolean } | null;
    if (hours?.active !== true && (input.trigger !== undefined || input.group !== undefined)) {
      fail(
        'AUTO-002',
        `The group "${group.name}" keeps no office hours: give it \`officeHours\` with \`active: true\` first.`,
      );
    }
  }
  return {
    name,
    groupId,
    triggerType: trigger.type,
    keywords,
    keywordKeys,
    message: message.message,
    media: message.media ?? [],
    active: input.active ?? current?.active ?? true,
    priority: input.priority ?? current?.priority ?? 0,
  };
}
