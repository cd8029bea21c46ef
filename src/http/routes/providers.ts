import { Type } from '@sinclair/typebox';
import { receiveMessage } from '../../domain/inbound/receive-message.ts';
import { applyStatusUpdates } from '../../domain/send/receipts/apply-status-updates.ts';
import { fail } from '../../errors.ts';
import { TWILIO_STATUS_PATH } from '../../providers/instances.ts';
import { parseTwilioInbound, parseTwilioStatus } from '../../providers/twilio/webhooks.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { TwilioInstance, TwilioParams } from '../../schemas/twilio-callbacks.ts';
import { newId } from '../../util/ids.ts';
import { noContent, ok } from '../respond.ts';
import { signedTwilioInstance } from '../twilio-signature.ts';
import type { App } from '../types.ts';

const SimulatorInbound = Type.Object({
  from: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The sender (any valid number, E.164 preferred).',
  }),
  to: Type.String({ minLength: 1, maxLength: 64, description: 'One of an account’s numbers (E.164).' }),
  text: Type.String({ maxLength: 5000 }),
  id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'The carrier’s message id; a second delivery with the same id is not stored again (default: a new id).',
    }),
  ),
  media: Type.Optional(
    Type.Array(Type.Object({ url: Type.String(), type: Type.Optional(Type.String()) }), { maxItems: 10 }),
  ),
});

const Received = Type.Object({
  messageId: Type.String(),
  conversationId: Type.String(),
  keyword: Type.Optional(
    Type.Union([Type.Literal('opt-out'), Type.Literal('opt-in'), Type.Literal('help')], {
      description: 'The compliance keyword the text consists of, if it is one.',
    }),
  ),
  autoresponse: Type.Optional(
    Type.Object(
      {
        autoresponderId: Type.String(),
        messageId: Type.Optional(Type.String({ description: 'The reply queued.' })),
        reason: Type.Optional(
          Type.Union([Type.Literal('window'), Type.Literal('not-sent')], {
            description:
              'Why no reply was queued: `window` (answered this contact within AUTORESPONDER_WINDOW_MINUTES), `not-sent` (e.g. the balance cannot cover it).',
          }),
        ),
      },
      { description: 'The autoresponder that matched the text, if any (docs/autoresponders.md).' },
    ),
  ),
});

const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/**
 * The simulator's inbound door on the public listener, for tests and demos: mounted only while
 * SIMULATOR_ENDPOINTS is on (the development default), behind SIMULATOR_SECRET when one is set.
 */
export async function simulatorInboundRoutes(app: App) {
  app.post(
    '/v1/providers/simulator/messages',
    {
      schema: {
        tags: ['providers'],
        summary: 'Simulate an inbound text',
        description:
          'Behaves exactly as a carrier delivering a text to one of our numbers: the sender becomes (or is found as) a ' +
          'contact, the message is threaded into the conversation, `message-received` is emitted, and STOP / START / ' +
          'HELP keywords are honoured. `to` not one of an account’s active numbers → 404 PROV-002; an invalid `from` → 400 CONT-001.',
        body: SimulatorInbound,
        response: { 200: Envelope(Received), ...errorResponses() },
      },
    },
    async (req) => {
      const b = req.body;
      const r = await receiveMessage(app.ctx, {
        provider: 'simulator',
        providerMessageId: b.id ?? `SIMIN${newId().replaceAll('-', '')}`,
        from: b.from,
        to: b.to,
        text: b.text,
        media: b.media ?? [],
        at: new Date(),
      });
      return ok({
        messageId: r.messageId,
        conversationId: r.conversationId,
        ...(r.keyword ? { keyword: r.keyword } : {}),
        ...(r.autoresponse ? { autoresponse: r.autoresponse } : {}),
      });
    },
  );
}

/** Carrier callbacks on the public listener: Twilio's, authenticated by their X-Twilio-Signature. */
export async function providerRoutes(app: App) {
  app.post(
    '/v1/providers/twilio/inbound',
    {
      schema: {
        tags: ['providers'],
        summary: 'Twilio inbound message callback',
        description:
          'Twilio’s incoming-message webhook (form-encoded, signed with X-Twilio-Signature over the public URL). ' +
          'Answers empty TwiML; a bad signature → 403 PROV-001. The text must be for a number bound to the instance ' +
          '(`?provider=`, default `twilio`), else 404 PROV-002.',
        querystring: TwilioInstance,
        body: TwilioParams,
        response: {
          200: { description: 'Empty TwiML.', content: { 'text/xml': { schema: Type.String() } } },
          ...errorResponses(),
        },
      },
    },
    async (req, reply) => {
      const instance = signedTwilioInstance(app, req);
      const message =
        parseTwilioInbound(req.body, instance) ?? fail('VAL-001', 'Not a Twilio inbound message.');
      await receiveMessage(app.ctx, message);
      return reply.code(200).type('text/xml').send(EMPTY_TWIML);
    },
  );

  app.post(
    TWILIO_STATUS_PATH,
    {
      schema: {
        tags: ['providers'],
        summary: 'Twilio message status callback',
        description:
          'Twilio’s status callback (form-encoded, signed with X-Twilio-Signature). Applies the receipt (a status ' +
          'never moves backwards; a repeated receipt is harmless). Answers 204; a bad signature → 403 PROV-001. ' +
          'A Twilio instance of PROVIDERS gives its own status callback URL, `?provider=NAME`: its receipts apply to ' +
          'the messages that instance took.',
        querystring: TwilioInstance,
        body: TwilioParams,
        response: { 204: { description: 'Receipt applied.', type: 'null' }, ...errorResponses() },
      },
    },
    async (req, reply) => {
      const instance = signedTwilioInstance(app, req);
      const update = parseTwilioStatus(req.body, instance);
      if (update) await applyStatusUpdates(app.ctx, [update]);
      return noContent(reply);
    },
  );
}
