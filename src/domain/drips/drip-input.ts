import type { Queryable } from '../../db/client.ts';
import type {
  Delay,
  DripFields,
  DripMedia,
  DripRow,
  DripTriggerType,
  StepInput,
  StepRow,
} from '../../db/queries/drips.ts';
import { getGroup } from '../../db/queries/groups.ts';
import { isSmartList } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import { classifyKeyword } from '../../messaging/keywords.ts';
import { checkMediaUrls } from '../../messaging/media-url.ts';
import { isId, newId } from '../../util/ids.ts';
import { requireList } from '../lists/get-list.ts';

/** A delay as a caller may give it: any of days, hours, minutes (missing ones are 0). */
export interface DelayInput {
  days?: number;
  hours?: number;
  minutes?: number;
}

/** The trigger part of a drip request. */
export interface TriggerInput {
  type?: DripTriggerType;
  delay?: DelayInput;
  /** Keyword triggers: the one word an inbound text must equal (case-insensitive). */
  message?: string | null;
  list?: { id: string } | null;
  listId?: string | null;
  groups?: { id: string }[];
  group?: { id: string } | null;
}

/** One message of a drip request; `id` keeps an existing step (and its stats). */
export interface StepRequest {
  id?: string;
  message: string;
  delay?: DelayInput;
  media?: DripMedia[];
}

/** What a caller gives to create or update a drip (the Drip campaign shape's writable fields). */
export interface DripInput {
  name?: string;
  description?: string | null;
  trigger?: TriggerInput;
  messages?: StepRequest[];
  maxDuration?: number | null;
  activate?: boolean;
}

// One word, as workflow keyword triggers accept it (so a drip can always migrate).
const KEYWORD = /^[\p{L}\p{N}_-]{1,50}$/u;
const MAX_DELAY_MINUTES = 366 * 24 * 60;

/** A delay with every part present; VAL-001 when it totals more than 366 days. */
export function normaliseDelay(d: DelayInput | undefined): Delay {
  const delay = { days: d?.days ?? 0, hours: d?.hours ?? 0, minutes: d?.minutes ?? 0 };
  if ((delay.days * 24 + delay.hours) * 60 + delay.minutes > MAX_DELAY_MINUTES)
    fail('VAL-001', 'A delay can be at most 366 days in total.');
  return delay;
}

// Leading and trailing runs of whitespace, punctuation and symbols (as the compliance keywords ignore them).
const EDGES = /^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu;

/** A keyword as stored and compared: NFKC-folded, surrounding marks dropped, upper case ("Join!" → JOIN). */
export function normaliseKeyword(text: string): string {
  return text.normalize('NFKC').replace(EDGES, '').toUpperCase();
}

/**
 * Checks a drip input against what is stored (`current`, absent on create) and turns it into
 * stored fields and steps. The trigger is merged part by part with the current one. Errors:
 * DRIP-004 (no list for a list trigger, a smart list, a keyword that is not one word or is a
 * compliance keyword), LIST-001 unknown list, GRP-001 unknown group, MSG-009 a media URL (the
 * service's own files under `externalsUrl` are accepted).
 */
export async function dripFields(
  db: Queryable,
  accountId: string,
  input: DripInput,
  externalsUrl: string,
  current?: { drip: DripRow; steps: StepRow[] },
): Promise<{ fields: DripFields; steps?: StepInput[] }> {
  const t = input.trigger ?? {};
  const type = t.type ?? current?.drip.trigger_type;
  if (!type) fail('DRIP-004', 'The trigger needs a `type`: `list`, `keyword` or `contact-created`.');

  let listId: string | null = null;
  if (type === 'list') {
    const given = t.list?.id ?? t.listId ?? undefined;
    const id = given ?? current?.drip.list_id ?? undefined;
    if (!id) fail('DRIP-004', 'A `list` trigger needs `trigger.list.id` (or `trigger.listId`).');
    if (given !== undefined || current?.drip.list_id !== id) {
      const list = await requireList(db, accountId, id);
      if (isSmartList(list)) fail('DRIP-004', 'A smart list has no joins: choose a static list.');
    }
    listId = id.toLowerCase();
  }

  let keyword: string | null = null;
  if (type === 'keyword') {
    const given = typeof t.message === 'string' ? normaliseKeyword(t.message) : undefined;
    keyword = given ?? current?.drip.keyword ?? null;
    if (!keyword || !KEYWORD.test(keyword))
      fail(
        'DRIP-004',
        'A `keyword` trigger needs `trigger.message`: one word (letters, digits, - or _; at most 50).',
      );
    if (classifyKeyword(keyword))
      fail(
        'DRIP-004',
        `"${keyword}" is a compliance keyword (opt-out, opt-in or help) and cannot start a drip.`,
      );
  }

  let groupId: string | null | undefined;
  const groupGiven = t.groups !== undefined ? (t.groups[0] ?? null) : t.group;
  if (groupGiven !== undefined) {
    groupId = groupGiven?.id ?? null;
    if (groupId !== null && !(isId(groupId) && (await getGroup(db, accountId, groupId)))) fail('GRP-001');
    groupId = groupId?.toLowerCase() ?? null;
  }

  let steps: StepInput[] | undefined;
  if (input.messages !== undefined) {
    for (const [i, m] of input.messages.entries())
      checkMediaUrls(m.media, externalsUrl, `messages[${i}].media`);
    const keep = new Set(current?.steps.map((s) => s.id));
    steps = input.messages.map((m) => ({
      id: m.id && keep.has(m.id.toLowerCase()) ? m.id.toLowerCase() : newId(),
      message: m.message,
      delay: normaliseDelay(m.delay),
      media: m.media ?? [],
    }));
    // Two messages naming the same step: the later one becomes a new step.
    const seen = new Set<string>();
    for (const s of steps) {
      if (seen.has(s.id)) s.id = newId();
      seen.add(s.id);
    }
  }

  return {
    fields: {
      name: input.name,
      description: input.description,
      triggerType: type,
      listId,
      keyword,
      groupId,
      triggerDelay: t.delay !== undefined ? normaliseDelay(t.delay) : undefined,
      maxDuration: input.maxDuration,
      active: input.activate,
    },
    steps,
  };
}
