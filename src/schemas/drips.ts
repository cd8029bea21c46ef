import { type TSchema, Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import {
  AuditStamp,
  ErrorObject,
  IdParam,
  LiteralUnion,
  MediaItem,
  NamedPageQuery,
  OffsetQuery,
} from './common.ts';
import { Contact } from './contacts.ts';
import { Group } from './groups.ts';
import { List } from './lists.ts';

// Null first: with type coercion on, a null tried against a string branch first would become "".
const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);

const TriggerType = Type.Union(
  [Type.Literal('list'), Type.Literal('keyword'), Type.Literal('contact-created')],
  {
    description:
      '`list`: a contact joins `list`; `keyword`: an inbound text equal to `message` (one word, any case); ' +
      '`contact-created`: a contact is created.',
  },
);

/** A delay: whole days, hours and minutes (each optional in requests, 0 when missing). */
const DelayInput = Type.Object(
  {
    days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 8760 })),
    minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 525600 })),
  },
  { description: 'Days, hours and minutes (integers >= 0).' },
);
export const Delay = Type.Object({ days: Type.Integer(), hours: Type.Integer(), minutes: Type.Integer() });

export const DripStats = Type.Object(
  {
    entered: Type.Integer(),
    active: Type.Integer(),
    errored: Type.Integer(),
    noAction: Type.Integer(),
    optOut: Type.Integer(),
    engaged: Type.Integer(),
  },
  {
    description:
      'Executions: `entered` all (per message: those that reached it), `active` running, `errored` a send could ' +
      'not be queued, `noAction` finished without a reply, `optOut` opted out, `engaged` replied. Per message, ' +
      'the outcomes count executions whose last message it was.',
  },
);

const MediaInput = Type.Object({
  url: Type.String({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+',
    maxLength: 2048,
    description: 'Absolute http(s) URL.',
  }),
  type: Type.Optional(Type.String({ maxLength: 200 })),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  filename: Type.Optional(Type.String({ maxLength: 200 })),
});

const Ref = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const triggerFields = {
  delay: Type.Optional(DelayInput),
  message: Type.Optional(
    Nullable(Type.String({ maxLength: 200, description: 'The keyword of a `keyword` trigger: one word.' })),
  ),
  list: Type.Optional(Nullable(Ref)),
  listId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  groups: Type.Optional(
    Type.Array(Ref, {
      maxItems: 1,
      description:
        'The sender group (its `id` is read; the other Group fields are ignored). Empty: the default group.',
    }),
  ),
  group: Type.Optional(Nullable(Ref)),
};
const TriggerInput = Type.Object({ type: Type.Optional(TriggerType), ...triggerFields });

const StepInput = Type.Object({
  id: Type.Optional(
    Type.String({ maxLength: 64, description: 'Keeps the existing message of this id (and its stats).' }),
  ),
  message: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH, description: 'Text with merge fields.' }),
  delay: Type.Optional(DelayInput),
  media: Type.Optional(Type.Array(MediaInput, { maxItems: 10 })),
  stats: Type.Optional(Type.Unknown({ description: 'Read-only: ignored.' })),
});

const dripFields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  maxDuration: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Days after which a running execution ends.' }),
    ),
  ),
  activate: Type.Optional(Type.Boolean({ description: '`true` starts entries; `false` deactivates.' })),
  stats: Type.Optional(Type.Unknown({ description: 'Read-only: ignored.' })),
};
const name = Type.String({ minLength: 1, maxLength: 200 });
const messages = Type.Array(StepInput, { minItems: 1, maxItems: 50 });

export const CreateDripBody = Type.Object({
  name,
  trigger: Type.Object({ type: TriggerType, ...triggerFields }),
  messages,
  ...dripFields,
});
export const UpdateDripBody = Type.Object({
  name: Type.Optional(name),
  trigger: Type.Optional(TriggerInput),
  messages: Type.Optional(messages),
  ...dripFields,
});

export const Drip = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  trigger: Type.Object({
    type: TriggerType,
    delay: Delay,
    message: Type.Optional(Type.String({ description: 'The keyword (keyword triggers).' })),
    list: Type.Optional(List),
    group: Type.Optional(Group),
    groups: Type.Array(Group),
  }),
  messages: Type.Array(
    Type.Object({
      id: Type.String(),
      message: Type.String(),
      delay: Delay,
      media: Type.Array(MediaItem),
      stats: DripStats,
    }),
  ),
  stats: DripStats,
  active: Type.Boolean(),
  maxDuration: Type.Optional(Type.Integer()),
  workflowId: Type.Optional(Type.String({ description: 'The workflow it was migrated into.' })),
  created: AuditStamp,
  updated: AuditStamp,
});

export const EXECUTION_STATUSES = [
  'active',
  'completed',
  'engaged',
  'opted-out',
  'errored',
  'stopped',
  'expired',
] as const;

export const Execution = Type.Object({
  id: Type.String(),
  status: LiteralUnion(EXECUTION_STATUSES, {
    description:
      '`active`, or how it ended: `completed` (no reply), `engaged`, `opted-out`, `errored`, `stopped`, `expired`.',
  }),
  entered: Type.String({ format: 'date-time' }),
  ended: Type.Optional(Type.String({ format: 'date-time' })),
  due: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'When its next step (or the end of its reply window) is due.',
    }),
  ),
  stepsSent: Type.Integer(),
  error: Type.Optional(ErrorObject),
  contact: Contact,
});

export const ExecutionResult = Type.Object({
  success: Type.Literal(true),
  data: Execution,
  pagination: Type.Object({
    limit: Type.Integer(),
    offset: Type.Integer(),
    hasNext: Type.Boolean(),
    totalCount: Type.Integer(),
  }),
});

export const ExecutionQuery = Type.Object({
  offset: OffsetQuery('Which execution, newest first.'),
  versionId: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'A version of the drip’s workflow: only its executions (not an id: ignored).',
    }),
  ),
  contactId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  status: Type.Optional(LiteralUnion(EXECUTION_STATUSES)),
});

export const DripListQuery = NamedPageQuery;

export const DripParams = IdParam('accountId', 'dripCampaignId');
