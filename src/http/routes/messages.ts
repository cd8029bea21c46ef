import { getMessage } from '../../domain/messages/get-message.ts';
import { hideContactDetails } from '../../domain/messages/hide-contact-details.ts';
import { listMessages } from '../../domain/messages/list-messages.ts';
import { estimateSend } from '../../domain/send/accept/estimate-send.ts';
import { scheduleSend } from '../../domain/send/accept/schedule-send.ts';
import { type SendMessagesInput, sendMessages } from '../../domain/send/accept/send-messages.ts';
import { Collection, Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import {
  Message,
  MessageListQuery,
  SendEstimate,
  SendEstimateBody,
  SendMessagesBody,
  SendMessagesResult,
} from '../../schemas/messages.ts';
import { AccountLanes } from '../account-lanes.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const SEND_DESCRIPTION =
  'Sends one text to many recipients in one call: `contacts` (existing ids, or `mobile` numbers, created as ' +
  'contacts when new), `conversations` (their contact, from their number), `filters` (`tags`: every tag; ' +
  '`attributes`: every condition; `listId`; `all: true` for every contact — unknown keys are refused, and so is ' +
  'a filter with no condition, MSG-006) or `listId`. ' +
  'Sent from `phoneNumberFilter.group` (the default group if absent); within a group a contact keeps the ' +
  'number of its conversation. Merge fields: `{{{firstName}}}`, `{{{contact.firstName}}}`, any contact field ' +
  '(id, firstName, lastName, email, mobile, country) and any custom attribute by name; missing values render empty. ' +
  'The price (segments × the destination country rate) is charged now; 402 ACCT-002 when the balance cannot cover ' +
  'it, and then nothing is queued. Invalid numbers (CONT-001) and opted-out or blocked contacts (CONT-010) are ' +
  'recorded as failed, uncharged messages and counted in `failed`, as are messages whose text renders empty ' +
  'without media (MSG-004) or longer than 1,600 characters (MSG-005); contacts whose number is not valid are ' +
  'listed in `invalid` with their `error`. Answers 200 with both published versions of the answer: `jobId`, ' +
  '`queued`, `estimatedPrice`, `messages`, and `requested` (every recipient: `queued` + `failed`), `valid` ' +
  '(accepted for sending), `invalid`. Media URLs must be absolute http(s) on a public host (MSG-009). Answers the first 100 messages; list ' +
  'the rest with GET …/messages?jobId=. With `sendAt` the send is checked and priced now (402 if the balance cannot ' +
  'cover it now), stored as a `scheduled` job and charged when it runs; a run the balance no longer covers ends the ' +
  "job `failed` with ACCT-002. Without the `contacts:read` scope the messages' `contact` carries only its `id`, " +
  'and `message` is left out where merge fields were rendered into it.';

/** An account's sends (and estimates) worked on at once by this listener; its others wait their turn (account-lanes.ts). */
const SENDS_AT_ONCE = 2;

/** Messages: bulk send, list and get. */
export async function messageRoutes(app: App) {
  const lanes = new AccountLanes(SENDS_AT_ONCE);
  app.post(
    '/v1/accounts/:accountId/messages',
    {
      config: { scope: 'messages:send' },
      schema: {
        tags: ['messages'],
        summary: 'Send messages in bulk',
        description: SEND_DESCRIPTION,
        params: IdParam('accountId'),
        body: SendMessagesBody,
        response: { 200: Envelope(SendMessagesResult), ...errorResponses(402) },
      },
    },
    async (req) => {
      const { sendAt, ...fields } = req.body;
      // Only the body's own fields: a body property named like an internal option is not one.
      const input: SendMessagesInput = {
        contacts: fields.contacts,
        conversations: fields.conversations,
        filters: fields.filters,
        listId: fields.listId,
        phoneNumberFilter: fields.phoneNumberFilter,
        template: fields.template,
        type: fields.type,
        media: fields.media,
        shortenLinks: fields.shortenLinks,
        smartEncoding: fields.smartEncoding,
        validityPeriod: fields.validityPeriod,
        quietHours: fields.quietHours === true && app.ctx.config.quietHoursEnabled,
      };
      const { db } = app.ctx;
      const { accountId } = req.params;
      const result = await lanes.run(accountId, () =>
        sendAt === undefined
          ? sendMessages(db, accountId, input, req.actor, app.ctx.config)
          : scheduleSend(db, accountId, input, sendAt, req.actor, app.ctx.config),
      );
      // Contact details only to a token that may read contacts (messages:send alone may not).
      if (req.grant?.scopes.has('contacts:read')) return ok(result);
      return ok({ ...result, messages: result.messages.map(hideContactDetails) });
    },
  );

  app.post(
    '/v1/accounts/:accountId/messages/estimate',
    {
      config: { scope: 'messages:send' },
      schema: {
        tags: ['messages'],
        summary: 'Estimate a send',
        description:
          'What `POST …/messages` with this body would do now, without doing it: the recipients counted (opted-out, ' +
          'blocked and invalid ones apart, by reason), segments and UCS-2 messages per the texts as rendered for each ' +
          'recipient, the messages quiet hours would hold, the price in the account’s currency and whether the ' +
          'balance covers it. Nothing is created, sent or charged (new mobiles are not kept as contacts). Every error ' +
          'of a send except 402: a price the balance cannot cover answers `balanceCovers: false`.',
        params: IdParam('accountId'),
        body: SendEstimateBody,
        response: { 200: Envelope(SendEstimate), ...errorResponses() },
      },
    },
    async (req) => {
      const fields = req.body;
      const input: SendMessagesInput = {
        contacts: fields.contacts,
        conversations: fields.conversations,
        filters: fields.filters,
        listId: fields.listId,
        phoneNumberFilter: fields.phoneNumberFilter,
        template: fields.template,
        type: fields.type,
        media: fields.media,
        shortenLinks: fields.shortenLinks,
        smartEncoding: fields.smartEncoding,
        validityPeriod: fields.validityPeriod,
        quietHours: fields.quietHours === true && app.ctx.config.quietHoursEnabled,
      };
      const { accountId } = req.params;
      // An estimate does a send's work and rolls it back: it takes the account's turn as a send does.
      return ok(
        await lanes.run(accountId, () =>
          estimateSend(app.ctx.db, accountId, input, req.actor, app.ctx.config),
        ),
      );
    },
  );

  app.get(
    '/v1/accounts/:accountId/messages',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['messages'],
        summary: 'List messages',
        description:
          'Newest first. Filters: `contactId`, `conversationId`, `jobId`, `campaignId`, `status`, and `from` / `to` ' +
          '(creation time, from inclusive, to exclusive).',
        params: IdParam('accountId'),
        querystring: MessageListQuery,
        response: { 200: Collection(Message), ...errorResponses() },
      },
    },
    async (req) => page(await listMessages(app.ctx.db, req.params.accountId, req.query), (m) => m),
  );

  app.get(
    '/v1/accounts/:accountId/messages/:messageId',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['messages'],
        summary: 'Get a message',
        params: IdParam('accountId', 'messageId'),
        response: { 200: Envelope(Message), ...errorResponses() },
      },
    },
    async (req) => ok(await getMessage(app.ctx.db, req.params.accountId, req.params.messageId)),
  );
}
