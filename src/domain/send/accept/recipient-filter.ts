import type { AttributeCondition } from '../../../db/queries/lists.ts';
import { fail } from '../../../errors.ts';
import { checkConditionValues } from '../../contacts/attribute-conditions.ts';

/**
 * The conditions of a recipient selector (a send's or a campaign's `filters`): contacts carrying
 * every tag and matching every attribute condition, or, only when asked for explicitly with
 * `all: true`, every contact of the account. Unknown keys are refused by the schema (ClosedObject).
 */
export interface RecipientConditions {
  tags?: (string | { tag: string })[];
  attributes?: AttributeCondition[];
  /**
   * Free text: contacts whose first name, last name, e-mail or mobile contain it (case-insensitive,
   * literally), as a smart list's `q`. Blank (empty or only spaces) is no condition.
   */
  q?: string;
  /** Every contact: must be explicit, and cannot be combined with a condition or a list. */
  all?: boolean;
}

/** What a selector selects: every contact, or the contacts matching its conditions (and list). */
export type Selection =
  | { all: true }
  | { all: false; tags: string[]; attributes: AttributeCondition[]; q?: string };

/** A selector's `q` as a condition: trimmed, and undefined when blank (then it is no condition). */
export function searchText(q: string | undefined): string | undefined {
  const text = q?.trim();
  return text ? text : undefined;
}

/**
 * The one rule for a recipient selector, used by sends and campaigns. `where` names the field
 * (e.g. `filters`) and `hasList` says whether a list narrows it. A selector with no condition and
 * no list is refused (MSG-006: say `all: true` to mean everyone), as is `all` beside a condition or
 * a list (VAL-001). Answers undefined when the selector is absent.
 */
export function recipientSelection(
  f: RecipientConditions | undefined,
  where: string,
  hasList: boolean,
): Selection | undefined {
  if (f === undefined) return undefined;
  const tags = (f.tags ?? []).map((t) => (typeof t === 'string' ? t : t.tag));
  const attributes = f.attributes ?? [];
  checkConditionValues(attributes, `${where}.attributes`);
  const q = searchText(f.q);
  const conditions = tags.length > 0 || attributes.length > 0 || q !== undefined;
  if (f.all === true) {
    if (conditions || hasList)
      fail(
        'VAL-001',
        `\`${where}.all\` selects every contact: it cannot be combined with tags, attributes, q or a list.`,
      );
    return { all: true };
  }
  if (!conditions && !hasList)
    fail(
      'MSG-006',
      `\`${where}\` names no condition (tags, attributes, q or a list): to send to every contact, give \`"${where}": {"all": true}\`.`,
    );
  return { all: false, tags, attributes, q };
}
