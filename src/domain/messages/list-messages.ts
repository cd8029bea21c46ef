import type { Queryable } from '../../db/client.ts';
import { listMessageViews, type MessageFilter } from '../../db/queries/messages.ts';
import { isId } from '../../util/ids.ts';
import type { Page } from '../page.ts';
import { type Message, presentMessage } from './present-message.ts';

/** Filters of the message list, as given (ids unchecked, dates as ISO text). */
export interface ListMessagesQuery {
  offset: number;
  limit: number;
  contactId?: string;
  conversationId?: string;
  jobId?: string;
  campaignId?: string;
  status?: string;
  from?: string;
  to?: string;
}

/** A page of the account's messages, newest first. An id filter that cannot name a record matches nothing. */
export async function listMessages(
  db: Queryable,
  accountId: string,
  q: ListMessagesQuery,
): Promise<Page<Message>> {
  const ids = [q.contactId, q.conversationId, q.jobId, q.campaignId];
  if (ids.some((id) => id !== undefined && !isId(id)))
    return { items: [], totalCount: 0, offset: q.offset, limit: q.limit };
  const filter: MessageFilter = {
    contactId: q.contactId,
    conversationId: q.conversationId,
    jobId: q.jobId,
    campaignId: q.campaignId,
    status: q.status,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
  };
  const { rows, totalCount } = await listMessageViews(db, accountId, filter, q.offset, q.limit);
  return { items: rows.map(presentMessage), totalCount, offset: q.offset, limit: q.limit };
}
