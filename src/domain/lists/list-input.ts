import type { Queryable } from '../../db/client.ts';
import { filterNamesCondition, findList, type ListFields, type ListFilter } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { checkConditionValues } from '../contacts/attribute-conditions.ts';

/** A list as a client sends it. */
export interface ListInput {
  name?: string;
  source?: { id?: string; integration?: string; lastSynced?: string } | null;
  keyword?: string | null;
  doubleOptIn?: { enabled?: boolean; prompt?: string | null };
  filter?: ListFilter | null;
  optInConfirmation?: string | null;
}

/** Validates a list input (the filter's `list` must name another list of the account). */
export async function toListFields(
  db: Queryable,
  accountId: string,
  input: ListInput,
  listId?: string,
): Promise<ListFields> {
  const f: ListFields = {};
  if (input.name !== undefined) {
    if (input.name.trim() === '') fail('VAL-001', 'The list name cannot be empty.');
    f.name = input.name.trim();
  }
  if (input.source !== undefined) f.source = input.source;
  if (input.keyword !== undefined) f.keyword = input.keyword?.trim() ? input.keyword.trim() : null;
  if (input.doubleOptIn !== undefined) {
    f.doubleOptIn = { enabled: input.doubleOptIn.enabled === true };
    if (input.doubleOptIn.prompt) f.doubleOptIn.prompt = input.doubleOptIn.prompt;
  }
  if (input.optInConfirmation !== undefined) f.optInConfirmation = input.optInConfirmation;
  if (input.filter !== undefined) {
    const filter = input.filter;
    if (filter) {
      checkConditionValues(filter.attributes, 'filter.attributes');
      if (!filterNamesCondition(filter))
        fail(
          'LIST-004',
          "The smart list's `filter` names no condition (q, attributes, list, valid, invalid, blocked, unblocked or optIn): " +
            'such a list would hold every contact. Give a condition, or `"filter": null` for a static list; ' +
            'to send to every contact, a send says `"filters": {"all": true}`.',
        );
    }
    if (filter?.list !== undefined && filter.list !== '') {
      if (filter.list === listId) fail('LIST-003', 'A smart list cannot filter on its own membership.');
      if (!isId(filter.list) || !(await findList(db, accountId, filter.list))) fail('LIST-003');
    } else if (filter) {
      delete filter.list;
    }
    f.filter = filter;
  }
  return f;
}
