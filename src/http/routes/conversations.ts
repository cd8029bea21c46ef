import { assignConversation } from '../../domain/conversations/assign-conversation.ts';
import { closeConversation } from '../../domain/conversations/close-conversation.ts';
import { getConversation } from '../../domain/conversations/get-conversation.ts';
import { listConversations } from '../../domain/conversations/list-conversations.ts';
import { readConversation } from '../../domain/conversations/read-conversation.ts';
import { unreadConversation } from '../../domain/conversations/unread-conversation.ts';
import { createSavedReply } from '../../domain/saved-replies/create-saved-reply.ts';
import { deleteSavedReply } from '../../domain/saved-replies/delete-saved-reply.ts';
import { getSavedReply, listSavedReplies } from '../../domain/saved-replies/list-saved-replies.ts';
import { updateSavedReply } from '../../domain/saved-replies/update-saved-reply.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  AssignConversationBody,
  Conversation,
  ConversationListQuery,
  CreateSavedReplyBody,
  SavedReply,
  SavedReplyListQuery,
  SavedReplyParams,
  UpdateSavedReplyBody,
} from '../../schemas/conversations.ts';
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
        description:
          'Most recent activity first. Filters: `contactId`, `closed`, `unread`, `replied`, `q`, `assignee` ' +
          '(`me`, `none` or a user id).',
        params: IdParam('accountId'),
        querystring: ConversationListQuery,
        response: { 200: Collection(Conversation), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, contactId, closed, unread, replied, q, assignee } = req.query;
      const result = await listConversations(
        app.ctx.db,
        req.params.accountId,
        { contactId, closed, unread, replied, q, assignee },
        { offset, limit },
        req.actor,
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

  app.put(
    `${ONE}/unread`,
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags: ['conversations'],
        summary: 'Mark a conversation unread',
        description:
          'Marks the newest inbound message of the conversation unread again (an extension), so the conversation ' +
          'counts as unread until it is read; answers the conversation. One with no inbound message is 409 CONV-003.',
        params: IdParam('accountId', 'conversationId'),
        response: { 200: Envelope(Conversation), ...errorResponses() },
      },
    },
    async (req) => ok(await unreadConversation(app.ctx.db, req.params.accountId, req.params.conversationId)),
  );

  app.put(
    `${ONE}/assignee`,
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags: ['conversations'],
        summary: 'Assign a conversation to a person',
        description:
          'Assigns the conversation to a console user of the account (`userId`), or unassigns it (`null`); an ' +
          'extension. Someone who is not a user of this account is 400 CONV-004. A person who leaves the account ' +
          'leaves their conversations unassigned. Filter the list with `assignee`.',
        params: IdParam('accountId', 'conversationId'),
        body: AssignConversationBody,
        response: { 200: Envelope(Conversation), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await assignConversation(
          app.ctx.db,
          req.params.accountId,
          req.params.conversationId,
          req.body.userId,
          req.actor,
        ),
      ),
  );

  const replies = '/v1/accounts/:accountId/savedreplies';

  app.get(
    replies,
    {
      config: { scope: 'conversations:read' },
      schema: {
        tags: ['conversations'],
        summary: 'List saved replies',
        description:
          "The account's saved replies (texts the inbox inserts into a reply; an extension), by name; `name` " +
          'filters by partial, case-insensitive match.',
        params: IdParam('accountId'),
        querystring: SavedReplyListQuery,
        response: { 200: Collection(SavedReply), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(
        await listSavedReplies(app.ctx.db, req.params.accountId, { name }, { offset, limit }),
        (r) => r,
      );
    },
  );

  app.post(
    replies,
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags: ['conversations'],
        summary: 'Create a saved reply',
        description:
          'A name and a text (merge fields as in any message, rendered when the reply is sent). An account keeps ' +
          'at most 200 (409 CONV-006).',
        params: IdParam('accountId'),
        body: CreateSavedReplyBody,
        response: { 201: Envelope(SavedReply), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply.code(201).send(ok(await createSavedReply(app.ctx.db, req.params.accountId, req.body, req.actor))),
  );

  app.get(
    `${replies}/:savedReplyId`,
    {
      config: { scope: 'conversations:read' },
      schema: {
        tags: ['conversations'],
        summary: 'Get a saved reply',
        params: SavedReplyParams,
        response: { 200: Envelope(SavedReply), ...errorResponses() },
      },
    },
    async (req) => ok(await getSavedReply(app.ctx.db, req.params.accountId, req.params.savedReplyId)),
  );

  app.put(
    `${replies}/:savedReplyId`,
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags: ['conversations'],
        summary: 'Change a saved reply',
        description: 'Changes the given fields only.',
        params: SavedReplyParams,
        body: UpdateSavedReplyBody,
        response: { 200: Envelope(SavedReply), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await updateSavedReply(
          app.ctx.db,
          req.params.accountId,
          req.params.savedReplyId,
          req.body,
          req.actor,
        ),
      ),
  );

  app.delete(
    `${replies}/:savedReplyId`,
    {
      config: { scope: 'conversations:write' },
      schema: {
        tags: ['conversations'],
        summary: 'Delete a saved reply',
        params: SavedReplyParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteSavedReply(app.ctx.db, req.params.accountId, req.params.savedReplyId);
      return { success: true as const };
    },
  );
}
