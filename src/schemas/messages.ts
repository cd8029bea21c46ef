import { Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { MAX_VALIDITY_SECONDS, MIN_VALIDITY_SECONDS } from '../messaging/validity.ts';
import { ValiditySeconds } from './accounts.ts';
import { AttributeFilter, AuditStamp, ErrorObject, LiteralUnion, MediaItem, PageQuery } from './common.ts';
import { MessageContactMobile } from './contacts.ts';
import { AllContacts, ClosedObject, SearchText } from './recipient-filters.ts';

/** Message statuses: queued → sending → sent → delivered | undelivered | failed; `received` for inbound. */
export const MESSAGE_STATUSES = [
  'queued',
  'sending',
  'sent',
  'delivered',
  'undelivered',
  'failed',
  'received',
] as const;

/** A message, outgoing or incoming (the compatibility Message shape of docs/interface.md, plus encoding, jobId, campaignId). */
export const Message = Type.Object({
  id: Type.String(),
  // Unset fields are left out, never null (the published description marks nothing nullable).
  contact: Type.Optional(
    Type.Object({
      id: Type.String(),
      // Optional: a send answer to a token without contacts:read carries only the id.
      firstName: Type.Optional(Type.String()),
      lastName: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      mobile: Type.Optional(MessageContactMobile),
    }),
  ),
  conversation: Type.Optional(Type.Object({ id: Type.String() })),
  phoneNumber: Type.Optional(
    Type.String({ description: 'Our number (E.164): the sender of an outgoing message.' }),
  ),
  message: Type.Optional(
    Type.String({
      description:
        'The text as sent (merge fields rendered); left out of a send answer to a token without contacts:read when merge fields were rendered.',
    }),
  ),
  template: Type.Optional(Type.String({ description: 'The source text with merge fields.' })),
  media: Type.Array(MediaItem),
  outgoing: Type.Boolean(),
  status: Type.String({ description: MESSAGE_STATUSES.join(' | ') }),
  encoding: Type.Optional(Type.String({ description: '`GSM-7` or `UCS-2`.' })),
  segments: Type.Integer(),
  price: Type.Number(),
  read: Type.Boolean(),
  error: Type.Optional(ErrorObject),
  jobId: Type.Optional(Type.String()),
  campaignId: Type.Optional(Type.String()),
  provider: Type.Optional(
    Type.String({
      description:
        'Outgoing, once a carrier accepted it: the provider instance that took it (`simulator`, `twilio`, `smpp` or ' +
        'an instance of PROVIDERS such as `carrier-b`; chosen by route, docs/routing.md).',
    }),
  ),
  created: AuditStamp,
  updated: AuditStamp,
});

/** A recipient named in a send: an existing contact by `id`, or a mobile number (created on the fly). */
export const SendContact = Type.Object({
  id: Type.Optional(Type.String()),
  mobile: Type.Optional(
    Type.Object({
      number: Type.String({ minLength: 1, maxLength: 64 }),
      country: Type.Optional(
        Type.String({ maxLength: 2, description: 'ISO 3166 alpha-2, for national numbers.' }),
      ),
    }),
  ),
  firstName: Type.Optional(Type.String({ maxLength: 200 })),
  lastName: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 320 })),
});

const TagFilter = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ tag: Type.String({ minLength: 1 }), visible: Type.Optional(Type.Boolean()) }),
]);

/** POST …/messages: recipients (contacts, conversations, filters, a list), the sender group, the text. */
export const SendMessagesBody = Type.Object({
  contacts: Type.Optional(Type.Array(SendContact, { maxItems: 10_000 })),
  conversations: Type.Optional(Type.Array(Type.String(), { maxItems: 10_000 })),
  filters: Type.Optional(
    ClosedObject(
      {
        tags: Type.Optional(
          Type.Array(TagFilter, { maxItems: 50, description: 'Contacts carrying every one of these tags.' }),
        ),
        attributes: Type.Optional(
          Type.Array(AttributeFilter, { maxItems: 50, description: 'Contacts matching every condition.' }),
        ),
        q: SearchText,
        listId: Type.Optional(Type.String({ description: 'Only members of this list.' })),
        list: Type.Optional(
          Type.Object(
            { id: Type.String() },
            {
              description:
                "The same as `listId` (the Campaign shape's spelling); naming two different lists is a 400.",
            },
          ),
        ),
        all: AllContacts,
      },
      {
        description:
          'Who gets the message: contacts matching every given condition. Unknown keys are refused; ' +
          '`{"all": true}` sends to every contact, and a filter with no condition is refused.',
      },
    ),
  ),
  listId: Type.Optional(Type.String({ description: 'Send to the members of this list (static or smart).' })),
  phoneNumberFilter: Type.Optional(
    Type.Object(
      { group: Type.Optional(Type.Object({ id: Type.String() })) },
      { description: 'Default group if absent.' },
    ),
  ),
  template: Type.Optional(
    Type.String({
      maxLength: MAX_TEXT_LENGTH,
      description: `Text with merge fields such as {{{firstName}}}; at most ${MAX_TEXT_LENGTH} characters, rendered too.`,
    }),
  ),
  type: Type.Optional(Type.Union([Type.Literal('SMS'), Type.Literal('MMS')], { default: 'SMS' })),
  media: Type.Optional(
    Type.Array(
      Type.Object({
        url: Type.String({
          maxLength: 2048,
          description: 'Absolute http(s) URL on a public host (private addresses are refused, MSG-009).',
        }),
      }),
      { maxItems: 10 },
    ),
  ),
  sendAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Schedule the send (a future time, at most 365 days ahead): it is checked and priced now, stored as a ' +
        'job in status `scheduled` (GET …/jobs/{jobId}, PUT …/jobs/{jobId}/cancel) and charged when it runs.',
    }),
  ),
  shortenLinks: Type.Optional(
    Type.Boolean({ description: 'Replace http(s) URLs with tracked short links counted per send job.' }),
  ),
  smartEncoding: Type.Optional(
    Type.Boolean({
      description:
        'Smart encoding for this send: typographic quotes, dashes, ellipses and similar look-alikes become their ' +
        'GSM-7 equivalents before the text is counted, priced and sent. Absent: the account’s `smartEncoding` ' +
        '(on by default).',
    }),
  ),
  validityPeriod: Type.Optional(
    ValiditySeconds(
      `Seconds each message may wait to be dispatched (${MIN_VALIDITY_SECONDS}..${MAX_VALIDITY_SECONDS}), counted ` +
        'from acceptance (a scheduled send’s from its run; a quiet-hours hold counts too): a message not handed ' +
        'to the carrier within it fails with MSG-012 and its price is refunded. What is left of it goes to the ' +
        'carrier (SMPP `validity_period`, Twilio `ValidityPeriod`). Absent: the account’s `validityPeriod`, if any.',
    ),
  ),
  quietHours: Type.Optional(
    Type.Boolean({
      description:
        'A marketing send: each message whose recipient’s local time is between 21:00 and 8:00 (time zone from ' +
        'the number’s prefix, the account’s where it does not tell) is queued and charged now and dispatched ' +
        'from 8:00 there, as campaigns, drips and workflows are. Default false: a direct send goes at once. ' +
        'No effect when the server runs with QUIET_HOURS_ENABLED=false.',
    }),
  ),
  conversationStrategy: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Accepted for compatibility (the interface publishes no values). Every message is threaded into ' +
        'the conversation of its contact and sending number, which is opened when there is none.',
    }),
  ),
});

/** What a send answers: the job, counts, the estimated charge and the first 100 messages. */
export const SendMessagesResult = Type.Object({
  jobId: Type.String(),
  requested: Type.Integer({ description: 'Every recipient the send addressed: `queued` + `failed`.' }),
  valid: Type.Integer({ description: 'Recipients accepted for sending (the same as `queued`).' }),
  queued: Type.Integer({ description: 'Messages queued for dispatch.' }),
  failed: Type.Integer({
    description:
      'Recipients not sent, not charged: invalid number CONT-001, opted out or blocked CONT-010, text that ' +
      'renders empty without media MSG-004 or longer than 1,600 characters MSG-005 (each message carries its `error`).',
  }),
  estimatedPrice: Type.Number({
    description: 'Charged now from the balance; refunded per message that fails to send.',
  }),
  messages: Type.Array(Message, {
    description: 'The first 100 messages; the rest via GET …/messages?jobId=.',
  }),
  invalid: Type.Array(
    Type.Object({
      mobile: Type.Object({ number: Type.String(), country: Type.Optional(Type.String()) }),
      error: ErrorObject,
    }),
    {
      description:
        'Contacts named in `contacts` whose number is not a valid mobile number (CONT-001), as given, each ' +
        'with its `error`: not sent, not charged. (Opted-out or blocked contacts are counted in `failed`; ' +
        'their message carries the error.)',
    },
  ),
  status: Type.Optional(
    Type.Literal('scheduled', { description: 'A send with `sendAt`: nothing queued yet.' }),
  ),
  sendAt: Type.Optional(Type.String({ format: 'date-time', description: 'When a scheduled send runs.' })),
});

/** POST …/messages/estimate: a send's body without `sendAt` (what it would do now). */
export const SendEstimateBody = Type.Omit(SendMessagesBody, ['sendAt']);

/** What a send would do: counts, segments, encodings, price and balance; nothing is created or charged. */
export const SendEstimate = Type.Object({
  requested: Type.Integer({ description: 'Every recipient the send addresses: `valid` + `failed`.' }),
  valid: Type.Integer({ description: 'Messages that would be queued and charged.' }),
  failed: Type.Integer({ description: 'Recipients that would not be sent, uncharged (see `failures`).' }),
  failures: Type.Array(
    Type.Object({ code: Type.String(), description: Type.String(), count: Type.Integer() }),
    {
      description:
        'The recipients not sent by reason: opted out or blocked CONT-010, invalid number CONT-001, …',
    },
  ),
  segments: Type.Integer({
    description: 'Segments of the messages that would be sent, each text as rendered.',
  }),
  ucs2: Type.Integer({
    description:
      'How many of those messages are UCS-2 (a character outside GSM-7, in the text or a merged value).',
  }),
  held: Type.Integer({
    description: 'How many would wait for the end of quiet hours (with `quietHours: true`).',
  }),
  estimatedPrice: Type.Number({ description: 'What the send would be charged now, in `currency`.' }),
  currency: Type.String(),
  balance: Type.Number({ description: 'The balance now.' }),
  balanceCovers: Type.Boolean({
    description: 'Whether the balance covers `estimatedPrice` (else a send is 402).',
  }),
});

export const MessageListQuery = Type.Object({
  ...PageQuery,
  contactId: Type.Optional(Type.String()),
  conversationId: Type.Optional(Type.String()),
  jobId: Type.Optional(Type.String()),
  campaignId: Type.Optional(Type.String()),
  status: Type.Optional(LiteralUnion(MESSAGE_STATUSES)),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Created before.' })),
});
