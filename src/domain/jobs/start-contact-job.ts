import { type Db, withBulkTx } from '../../db/client.ts';
import type { ContactTag } from '../../db/queries/contacts.ts';
import { insertContactJob, recordUnselectedIds } from '../../db/queries/jobs.ts';
import { isSmartList, type ListRow } from '../../db/queries/lists.ts';
import { recipientsSql } from '../../db/queries/recipients.ts';
import { fail } from '../../errors.ts';
import type { ContactAction } from '../../schemas/enums.ts';
import { MAX_SELECTOR_IDS } from '../../schemas/limits.ts';
import { isId, newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { normaliseTags } from '../contacts/contact-input.ts';
import { requireList } from '../lists/get-list.ts';
import { type RecipientConditions, recipientSelection } from '../send/accept/recipient-filter.ts';
import { presentOneJob } from './get-job.ts';
import type { JobResource } from './present-job.ts';

/** Actions that change a list's members: they need `listId` (and the lists:write scope). */
export const LIST_ACTIONS: readonly ContactAction[] = ['addToList', 'removeFromList'];
/** Actions that need `tags`. */
const TAG_ACTIONS: readonly ContactAction[] = ['tag', 'untag'];

/** POST …/bulk/contacts, as the route hands it over (the schema has checked the shapes). */
export interface ContactJobInput {
  action: ContactAction;
  selector: {
    ids?: string[];
    filters?: RecipientConditions & { listId?: string; list?: { id: string } };
    listId?: string;
  };
  listId?: string;
  tags?: (string | { tag: string; visible?: boolean })[];
}

/** The arguments a job keeps in `request` for its worker. */
export interface ContactJobRequest {
  action: ContactAction;
  listId?: string;
  /** tag / untag: the tags (untag matches by name). */
  tags?: ContactTag[];
}

/**
 * Starts a bulk contact operation: checks the selector and the action's arguments, takes the
 * selection (the contacts it names now) and creates the job, answered as the Job resource; the
 * worker role applies the action in chunks. Ids naming no contact of the account are reported in
 * `invalid` (CONT-002), not selected. A selector matching nothing makes a job `completed` at once,
 * with total 0. Errors: VAL-001 (selector naming none or several of ids/filters/listId, a
 * malformed id), MSG-006 (filters without a condition), JOB-002 (tags or listId missing for the
 * action), LIST-001 unknown list (another account's too), LIST-002 (409) a smart list as the target.
 */
export async function startContactJob(
  db: Db,
  accountId: string,
  input: ContactJobInput,
  by: Actor,
): Promise<JobResource> {
  const { selector } = input;
  const given = (['ids', 'filters', 'listId'] as const).filter((k) => selector[k] !== undefined);
  if (given.length !== 1)
    fail('VAL-001', '`selector` names the contacts with exactly one of `ids`, `filters` or `listId`.');
  const ids = [...new Set((selector.ids ?? []).map((id) => id.toLowerCase()))];
  const badId = (selector.ids ?? []).findIndex((id) => !isId(id));
  if (badId >= 0)
    fail(
      'VAL-001',
      `\`selector.ids[${badId}]\` is not a contact id: ${JSON.stringify(selector.ids?.[badId])}.`,
    );
  if (ids.length > MAX_SELECTOR_IDS)
    fail('VAL-001', `\`selector.ids\` names at most ${MAX_SELECTOR_IDS} contacts.`);

  const f = selector.filters;
  const filterLists = [f?.listId, f?.list?.id].filter((id): id is string => id !== undefined);
  if (new Set(filterLists).size > 1)
    fail('VAL-001', '`filters.listId` and `filters.list.id` name different lists.');
  const selectorListId = selector.listId ?? filterLists[0];
  const selection = recipientSelection(f, 'selector.filters', selectorListId !== undefined);

  const request: ContactJobRequest = { action: input.action };
  if (LIST_ACTIONS.includes(input.action)) {
    if (input.listId === undefined)
      fail('JOB-002', `\`${input.action}\` needs \`listId\`: the list to change.`);
    request.listId = input.listId;
  }
  if (TAG_ACTIONS.includes(input.action)) {
    const tags = normaliseTags(input.tags ?? []);
    if (tags.length === 0) fail('JOB-002', `\`${input.action}\` needs \`tags\`: at least one tag.`);
    request.tags = tags;
  }

  return withBulkTx(db, async (tx) => {
    let list: ListRow | undefined;
    if (selectorListId !== undefined) list = await requireList(tx, accountId, selectorListId);
    if (request.listId !== undefined) {
      const target = await requireList(tx, accountId, request.listId);
      if (isSmartList(target)) fail('LIST-002');
      request.listId = target.id;
    }
    const values: unknown[] = [accountId];
    const text = recipientsSql(
      {
        contactIds: ids,
        conversationIds: [],
        filter:
          selection !== undefined || list !== undefined
            ? {
                tags: selection?.all === false ? selection.tags : [],
                attributes: selection?.all === false ? selection.attributes : [],
                q: selection?.all === false ? selection.q : undefined,
                list,
              }
            : undefined,
      },
      values,
    );
    const row = await insertContactJob(tx, accountId, {
      id: newId(),
      request,
      by,
      selection: { text, values },
    });
    if (ids.length > row.submitted) row.invalid = await recordUnselectedIds(tx, accountId, row.id, ids);
    return presentOneJob(tx, accountId, row);
  });
}
