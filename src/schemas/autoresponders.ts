import { Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { AuditStamp, Id, IdParam, MediaItem, PageQuery } from './common.ts';
import { MAX_KEYWORDS } from './limits.ts';
import { GroupRef } from './numbers.ts';

const TriggerType = Type.Union([Type.Literal('keywords'), Type.Literal('outsideOfficeHours')], {
  description:
    '`keywords`: the text contains one of `keywords` as whole words, any case; `outsideOfficeHours`: any text ' +
    'arriving outside the group’s `officeHours` (in their time zone).',
});

const MediaInput = Type.Object({
  url: Type.String({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+',
    maxLength: 2048,
    description: 'Absolute public http(s) URL.',
  }),
  type: Type.Optional(Type.String({ maxLength: 200, description: 'Media type, e.g. `image/png`.' })),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  filename: Type.Optional(Type.String({ maxLength: 200 })),
});

/** An autoresponder: an automatic reply to inbound texts that match its trigger. */
export const Autoresponder = Type.Object({
  id: Type.String(),
  name: Type.String(),
  group: Type.Optional(
    Type.Object(GroupRef.properties, {
      description: 'The group whose numbers it answers for; absent: every number of the account.',
    }),
  ),
  trigger: Type.Object({
    type: TriggerType,
    keywords: Type.Optional(Type.Array(Type.String(), { description: 'For a `keywords` trigger.' })),
  }),
  message: Type.Object({
    message: Type.String({
      description: 'The reply; merge fields in triple braces, e.g. `{{{firstName}}}`.',
    }),
    media: Type.Array(MediaItem),
  }),
  active: Type.Boolean(),
  priority: Type.Integer({
    description:
      'Among matching autoresponders of the same trigger type, the higher answers (then the older).',
  }),
  stats: Type.Object({
    triggered: Type.Integer({ description: 'Inbound texts this autoresponder was the one to answer.' }),
    repliesSent: Type.Integer({ description: 'Replies queued.' }),
    suppressed: Type.Integer({
      description:
        'Triggers without a reply: the contact was answered within AUTORESPONDER_WINDOW_MINUTES, or the reply could not be sent.',
    }),
    lastTriggeredAt: Type.Optional(Type.String({ format: 'date-time' })),
    lastReplyAt: Type.Optional(Type.String({ format: 'date-time' })),
  }),
  created: AuditStamp,
  updated: AuditStamp,
});

const name = Type.String({ minLength: 1, maxLength: 200 });
const trigger = Type.Object({
  type: TriggerType,
  keywords: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
      maxItems: MAX_KEYWORDS,
      description:
        'Words or phrases (letters, digits and spaces between words; surrounding punctuation is ignored). ' +
        'Compliance keywords (STOP, START, HELP…) are refused.',
    }),
  ),
});
const message = Type.Object({
  message: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }),
  media: Type.Optional(Type.Array(MediaInput, { maxItems: 10 })),
});
const group = Type.Union([Type.Object({ id: Id('A group of the account.') }), Type.Null()], {
  description: 'The group whose numbers it answers for; null or absent: every number of the account.',
});
const active = Type.Boolean({ description: 'Default true.' });
const priority = Type.Integer({ minimum: -1000, maximum: 1000, description: 'Default 0.' });

export const CreateAutoresponderBody = Type.Object({
  name,
  group: Type.Optional(group),
  trigger,
  message,
  active: Type.Optional(active),
  priority: Type.Optional(priority),
});

export const UpdateAutoresponderBody = Type.Object({
  name: Type.Optional(name),
  group: Type.Optional(group),
  trigger: Type.Optional(trigger),
  message: Type.Optional(message),
  active: Type.Optional(active),
  priority: Type.Optional(priority),
});

export const AutoresponderListQuery = Type.Object({
  ...PageQuery,
  groupId: Type.Optional(Id('Only the autoresponders of this group.')),
  active: Type.Optional(Type.Boolean({ description: 'true: active ones only; false: inactive ones only.' })),
});

export const AutoresponderParams = IdParam('accountId', 'autoresponderId');
