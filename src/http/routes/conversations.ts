import { closeConversation } from '../../domain/conversations/close-conversation.ts';
import { getConversation } from '../../domain/conversations/get-conversation.ts';
import { listConversations } from '../../domain/conversations/list-conversations.ts';
import { readConversation } from '../../domain/conversations/read-conversation.ts';
import { Collection, Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import { Conversation, ConversationListQuery } from '../../schemas/conversations.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const ONE = '/v1/accounts/:accountId/conversations/:conversationId';

/** Conversations: messages threaded per (contact, our number), with unread tracking. */
export async function conversationRoutes(app: App) {
  app.get(
    '/v1/accounts/:accountId/conversations',
    {
      config: { scope: 'conversations:read' },
      schema: {
        tags: ['conversations'],
        summary: 'List conversations',
        description: 'Most recent activity first. Filters: `contactId`, `closed`, `unread`, `replied`, `q`.',
        params: IdParam('accountId'),
        querystring: ConversationListQuery,
        response: { 200: Collection(Conversation), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, contactId, closed, unread, replied, q } = req.query;
      const result = await listConversations(
        app.ctx.db,
        req.params.accountId,
        { contactId, closed, unread, replied, q },
        { offset, limit },
      );
      return page(result, (c) => c);
    },
  );

  app.get(
    ONE,
    {
      config: { scope: 'conversations:read' },
      schema: {
        tags: ['conversations'],
        summary: 'Get a conversation',
        params: IdParam('accountId', 'conversationId'),
        response: { 200: Envelope(Conversation), ...errorResponses() },
      },
    },
    async (req) => ok(await getConversation(app.ctx.db, req.params.accountId, req.params.conversationId)),
  );

  app.put(
    `${ONE}/close`,
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags: ['conversations'],
        summary: 'Close a conversation',
        description:
          'Closes the conversation and emits `conversation-closed`. Closing a closed conversation changes nothing. ' +
          'A new inbound message reopens it (and emits `conversation-started` with `reopened: true`).',
        params: IdParam('accountId', 'conversationId'),
        response: { 200: Envelope(Conversation), ...errorResponses() },
      },
    },
    async (req) =>
      ok(await closeConversation(app.ctx.db, req.params.accountId, req.params.conversationId, req.actor)),
  );

  app.put(
    `${ONE}/read`,
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags: ['conversations'],
        summary: 'Mark a conversation read',
        description:
          'Marks every inbound message of the conversation read (an extension); answers the conversation.',
        params: IdParam('accountId', 'conversationId'),
        response: { 200: Envelope(Conversation), ...errorResponses() },
      },
    },
    async (req) => ok(await readConversation(app.ctx.db, req.params.accountId, req.params.conversationId)),
  );
}
