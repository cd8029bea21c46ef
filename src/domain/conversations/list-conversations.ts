import type { Queryable } from '../../db/client.ts';
import { type ConversationFilter, listConversationViews } from '../../db/queries/conversations.ts';
import type { Page } from '../page.ts';
import { type Conversation, presentConversations } from './present-conversation.ts';

/** A page of the account's conversations, most recent activity first. */
export async function listConversations(
  db: Queryable,
  accountId: string,
  filter: ConversationFilter,
  page: { offset: number; limit: number },
): Promise<Page<Conversation>> {
  const { rows, totalCount } = await listConversationViews(db, accountId, filter, page.offset, page.limit);
  return {
    items: await presentConversations(db, accountId, rows),
    totalCount,
    offset: page.offset,
    limit: page.limit,
  };
}
