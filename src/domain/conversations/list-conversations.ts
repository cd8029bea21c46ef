import type { Queryable } from '../../db/client.ts';
import { type ConversationFilter, listConversationViews } from '../../db/queries/conversations.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import type { Page } from '../page.ts';
import { type Conversation, presentConversations } from './present-conversation.ts';

/** The filters of the list as the API takes them: `assignee` is `me`, `none` or a user id. */
export type ConversationListFilter = Omit<ConversationFilter, 'assigneeId' | 'unassigned'> & {
  assignee?: string;
};

/**
 * A page of the account's conversations, most recent activity first. `assignee: 'me'` means the
 * person the caller acts for: an API client is nobody's, so it answers no conversation.
 */
export async function listConversations(
  db: Queryable,
  accountId: string,
  { assignee, ...rest }: ConversationListFilter,
  page: { offset: number; limit: number },
  by?: Actor,
): Promise<Page<Conversation>> {
  const filter: ConversationFilter = { ...rest };
  if (assignee === 'none') filter.unassigned = true;
  else if (assignee !== undefined) {
    const id = assignee === 'me' ? (by?.source === 'console' ? by.id : undefined) : assignee;
    if (!id || !isId(id)) return { items: [], totalCount: 0, offset: page.offset, limit: page.limit };
    filter.assigneeId = id;
  }
  const { rows, totalCount } = await listConversationViews(db, accountId, filter, page.offset, page.limit);
  return {
    items: await presentConversations(db, accountId, rows),
    totalCount,
    offset: page.offset,
    limit: page.limit,
  };
}
