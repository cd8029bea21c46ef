import { Type } from '@sinclair/typebox';
import { PROVIDER_NAME_PATTERN } from '../providers/names.ts';
import { AuditStamp, PageQuery } from './common.ts';
import { MAX_DAILY_CAP } from './limits.ts';

const open = { additionalProperties: true };

/** A number's channels: sms, voice and whatsapp (the interface's Channels object). */
export const Channels = Type.Object({
  sms: Type.Object(
    {
      active: Type.Boolean(),
      universalReply: Type.Boolean(),
      supportedDestinations: Type.Object({}, open),
      regulatory: Type.Object(
        {
          brandStatus: Type.Optional(Type.String()),
          campaign: Type.Optional(
            Type.Object(
              {
                id: Type.Optional(Type.String()),
                campaignId: Type.Optional(Type.String()),
                useCase: Type.Optional(Type.String()),
                pft: Type.Optional(Type.Boolean()),
                submitted: Type.Optional(Type.String({ format: 'date-time' })),
                approved: Type.Optional(Type.String({ format: 'date-time' })),
                rejected: Type.Optional(Type.String({ format: 'date-time' })),
              },
              open,
            ),
          ),
        },
        open,
      ),
    },
    open,
  ),
  voice: Type.Object(
    {
      active: Type.Boolean(),
      incoming: Type.Optional(
        Type.Object(
          {
            action: Type.Optional(Type.String()),
            forwardTo: Type.Optional(Type.String()),
            message: Type.Optional(Type.String()),
            transcribe: Type.Optional(Type.Boolean()),
          },
          open,
        ),
      ),
      features: Type.Array(Type.String()),
    },
    open,
  ),
  whatsapp: Type.Object({ active: Type.Boolean() }, open),
});

/** Channels in an update: any part, merged into what the number has. */
export const ChannelsPatch = Type.Object({
  sms: Type.Optional(
    Type.Object({
      active: Type.Optional(Type.Boolean()),
      universalReply: Type.Optional(Type.Boolean()),
      supportedDestinations: Type.Optional(Type.Object({}, open)),
      regulatory: Type.Optional(
        Type.Object({
          brandStatus: Type.Optional(Type.String({ maxLength: 100 })),
          campaign: Type.Optional(
            Type.Object({
              id: Type.Optional(Type.String({ maxLength: 200 })),
              campaignId: Type.Optional(Type.String({ maxLength: 200 })),
              useCase: Type.Optional(Type.String({ maxLength: 200 })),
              pft: Type.Optional(Type.Boolean()),
              submitted: Type.Optional(Type.String({ format: 'date-time' })),
              approved: Type.Optional(Type.String({ format: 'date-time' })),
              rejected: Type.Optional(Type.String({ format: 'date-time' })),
            }),
          ),
        }),
      ),
    }),
  ),
  voice: Type.Optional(
    Type.Object({
      active: Type.Optional(Type.Boolean()),
      incoming: Type.Optional(
        Type.Object({
          action: Type.Optional(Type.Literal('forward')),
          forwardTo: Type.Optional(Type.String({ maxLength: 32 })),
          message: Type.Optional(Type.String({ maxLength: 1000 })),
          transcribe: Type.Optional(Type.Boolean()),
        }),
      ),
      features: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 })),
    }),
  ),
  whatsapp: Type.Optional(Type.Object({ active: Type.Optional(Type.Boolean()) })),
});

export const GroupRef = Type.Object({ id: Type.String(), name: Type.String() });

/** What a daily cap is, in the words both numbers and groups use. */
export const DAILY_CAP_RULE =
  'A day is the account’s calendar day, in its time zone (`timezone`, PUT …/accounts/{accountId}): the count ' +
  'starts again at midnight there. Every message handed to the carrier counts (a retried attempt again). ' +
  'Past the cap, messages are not failed: they stay `queued` and go from the start of the next day (not ' +
  'before 8:00 in the recipient’s zone when the service holds quiet hours), still within the caps and the ' +
  'per-second throughput.';

/**
 * A daily cap in a request: an integer 1..MAX_DAILY_CAP, or null for none. One schema of two types,
 * not a union: the validator coerces types, and in a union a null would pass as 0.
 */
export const DailyCapInput = (whose: string) =>
  Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    minimum: 1,
    maximum: MAX_DAILY_CAP,
    description: `At most this many messages a day from ${whose} (1..${MAX_DAILY_CAP}); null: no cap. ${DAILY_CAP_RULE}`,
  });

/** A request body with its `dailyCap` typed (the type provider infers a DailyCapInput as unknown). */
export type WithDailyCap<T> = Omit<T, 'dailyCap'> & { dailyCap?: number | null };

/** A daily cap in an answer (absent: none). */
export const DailyCap = (whose: string) =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `At most this many messages a day from ${whose}; absent: no cap. ${DAILY_CAP_RULE}`,
    }),
  );

export const Provider = Type.String({
  pattern: PROVIDER_NAME_PATTERN,
  description:
    'A provider instance: `simulator`, `twilio` (Twilio-compatible REST, TWILIO_*), `smpp` (SMPP_*), or the ' +
    'name of an instance of PROVIDERS (docs/routing.md): 1 to 32 lowercase letters, digits, `-` or `_`.',
});

/** The interface's Phone number, plus `throughput` (messages per second, ours). */
export const PhoneNumber = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`active`, or `released` once given back.' }),
  number: Type.String({ description: 'E.164.' }),
  country: Type.String(),
  type: Type.String({ description: '`local`, `mobile` or `tollfree`.' }),
  name: Type.Optional(Type.String()),
  provider: Type.String(),
  verified: Type.Boolean(),
  universalReply: Type.Boolean(),
  hosted: Type.Boolean(),
  supportedDestinations: Type.Array(Type.String()),
  forwardTo: Type.Optional(Type.Object({}, open)),
  channels: Channels,
  groups: Type.Array(GroupRef),
  throughput: Type.Integer({ description: 'Messages per second this number may send.' }),
  dailyCap: DailyCap('this number (its groups’ caps hold too)'),
  created: AuditStamp,
  updated: AuditStamp,
});

export const NumberType = Type.Union([
  Type.Literal('local'),
  Type.Literal('mobile'),
  Type.Literal('tollfree'),
]);

export const AvailableNumbersQuery = Type.Object({
  country: Type.String({ pattern: '^[A-Za-z]{2}$', default: 'US', description: 'ISO 3166-1 alpha-2.' }),
  type: Type.Optional(NumberType),
  postalCode: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
  features: Type.Optional(
    Type.String({
      pattern: '^\\s*(sms|mms|voice)\\s*(,\\s*(sms|mms|voice)\\s*)*$',
      description: 'Comma-separated list of `sms`, `mms`, `voice`: every one must be supported.',
    }),
  ),
  contains: Type.Optional(
    Type.String({
      pattern: '^\\+?[0-9*]{1,15}$',
      description: 'Digits the number contains; `*` matches any one digit.',
    }),
  ),
  areaCode: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })),
  ...PageQuery,
});

export const AvailableNumber = Type.Object({
  number: Type.String(),
  country: Type.String(),
  type: Type.String(),
  areaCode: Type.String(),
  postalCode: Type.String(),
  features: Type.Array(Type.String()),
  provider: Type.String(),
  price: Type.Number({ description: 'Monthly price in USD.' }),
});

export const TakeNumberBody = Type.Object({
  number: Type.String({ minLength: 1, maxLength: 32, description: 'E.164.' }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  groupId: Type.Optional(Type.String({ minLength: 1 })),
  provider: Type.Optional(Provider),
  dailyCap: Type.Optional(DailyCapInput('the number')),
});

export const UpdateNumberBody = Type.Object({
  name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  forwardTo: Type.Optional(Type.Union([Type.Object({}, open), Type.Null()])),
  universalReply: Type.Optional(Type.Boolean()),
  channels: Type.Optional(ChannelsPatch),
  throughput: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 10000, description: 'Messages per second.' }),
  ),
  provider: Type.Optional(Provider),
  dailyCap: Type.Optional(DailyCapInput('the number')),
});

export const PhoneNumbersQuery = Type.Object({
  status: Type.Union([Type.Literal('active'), Type.Literal('released')], {
    default: 'active',
    description: '`active` (held numbers, the default) or `released` (numbers given back, kept for history).',
  }),
  ...PageQuery,
});
