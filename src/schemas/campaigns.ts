import { type TSchema, Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { AttributeFilter, AuditStamp, IdParam, MediaItem, NamedPageQuery } from './common.ts';
import { List } from './lists.ts';
import { AllContacts, ClosedObject, SearchText } from './recipient-filters.ts';

// Null first: with type coercion on, a null tried against a string branch first would become "".
const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);

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
const media = Type.Array(MediaInput, { maxItems: 10 });

const TriggerCode = Type.Union([Type.Literal('M'), Type.Literal('S'), Type.Literal('FU')], {
  description: '`M` manual, `S` scheduled, `FU` file upload.',
});
const Tag = Type.Object({
  tag: Type.String({ minLength: 1, maxLength: 100 }),
  visible: Type.Optional(Type.Boolean()),
});
const FieldMapping = Type.Object({
  attribute: Type.Optional(Type.String({ maxLength: 200 })),
  column: Type.Optional(Type.String({ maxLength: 200 })),
  mandatory: Type.Optional(Type.Boolean()),
});
const Schedule = Type.Object({
  frequency: Type.Optional(Type.String({ maxLength: 20 })),
  timezone: Type.Optional(Type.String({ maxLength: 100 })),
  cron: Type.Optional(Type.String({ maxLength: 200 })),
});
const Reporting = Type.Object({
  destination: Type.Optional(Type.String({ maxLength: 500 })),
  when: Type.Optional(Type.String({ maxLength: 50 })),
  delay: Type.Optional(Type.String({ maxLength: 50 })),
  unit: Type.Optional(Type.String({ maxLength: 50 })),
});

/** Job: one send of a campaign. */
export const Job = Type.Object({
  id: Type.String(),
  submitted: Type.Integer(),
  queued: Type.Integer(),
  status: Type.String({
    description:
      '`queued`, `sending` or `completed`; a send with `sendAt`: `scheduled`, then `queued`, or `cancelled` or `failed`.',
  }),
  price: Type.Number(),
  failures: Type.Integer(),
  invalid: Type.Array(Type.Unknown()),
  sendAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'When a scheduled send runs (POST …/messages `sendAt`); left out for a send at once.',
    }),
  ),
  error: Type.Optional(
    Type.Object(
      { code: Type.String(), description: Type.String() },
      { description: 'Why a scheduled send failed; left out when it did not.' },
    ),
  ),
  created: AuditStamp,
});

export const Campaign = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  fieldMappings: Type.Array(FieldMapping),
  filters: Type.Object({
    list: Type.Optional(List),
    q: Type.Optional(
      Type.String({ description: 'Free text narrowing the recipients (see the create body); absent: none.' }),
    ),
    attributes: Type.Array(AttributeFilter),
    tags: Type.Array(Tag),
    contacts: Type.Optional(Type.Array(Type.String(), { description: 'The contacts named by id.' })),
    all: Type.Boolean({ description: 'Sends to every contact of the account.' }),
  }),
  media: Type.Array(MediaItem),
  phoneNumberFilter: Type.Optional(Type.Object({ group: Type.Object({ id: Type.String() }) })),
  schedule: Type.Optional(Schedule),
  nextExecution: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the campaign runs next.' }),
  ),
  reporting: Type.Optional(Reporting),
  template: Type.String(),
  trigger: Type.Object({ code: TriggerCode, name: Type.String() }),
  created: AuditStamp,
  updated: AuditStamp,
  paused: Type.Optional(
    Type.String({ format: 'date-time', description: 'When it was paused; absent when not paused.' }),
  ),
  status: Type.String({ description: '`draft`, `scheduled`, `running`, `sent`, `failed` or `paused`.' }),
  lastJob: Type.Optional(Job),
  lastError: Type.Optional(Type.Object({ code: Type.String(), description: Type.String() })),
});

const campaignFields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  fieldMappings: Type.Optional(Type.Array(FieldMapping, { maxItems: 200 })),
  filters: Type.Optional(
    ClosedObject(
      {
        list: Type.Optional(Nullable(Type.Object({ id: Type.String({ minLength: 1 }) }))),
        q: SearchText,
        attributes: Type.Optional(Type.Array(AttributeFilter, { maxItems: 50 })),
        // The published form too: a tag as a plain string is a visible tag.
        tags: Type.Optional(
          Type.Array(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Tag]), { maxItems: 50 }),
        ),
        contacts: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
            maxItems: 1000,
            description:
              'Contacts named by id (the published form), sent to beside those the list and conditions select.',
          }),
        ),
        all: AllContacts,
      },
      {
        description:
          'Who the campaign sends to: the list, narrowed by every condition, and the contacts named by id. Unknown keys ' +
          'are refused; `{"all": true}` sends to every contact (and clears the list and conditions); a filter naming nothing is MSG-006.',
      },
    ),
  ),
  media: Type.Optional(media),
  phoneNumberFilter: Type.Optional(
    Nullable(Type.Object({ group: Type.Optional(Type.Object({ id: Type.String({ minLength: 1 }) })) })),
  ),
  schedule: Type.Optional(Nullable(Schedule)),
  nextExecution: Type.Optional(
    Nullable(
      Type.String({ format: 'date-time', description: 'One-shot run time; a past time runs it at once.' }),
    ),
  ),
  reporting: Type.Optional(Nullable(Reporting)),
  template: Type.Optional(Type.String({ maxLength: MAX_TEXT_LENGTH })),
  trigger: Type.Optional(
    Type.Object({ code: TriggerCode, name: Type.Optional(Type.String({ maxLength: 100 })) }),
  ),
  paused: Type.Optional(
    Nullable(
      Type.Union([Type.Boolean(), Type.String({ format: 'date-time' })], {
        description: '`true` (or a timestamp) pauses, `false` or null resumes.',
      }),
    ),
  ),
};
const name = Type.String({ minLength: 1, maxLength: 200 });

/** `name` may be left out (the published CampaignRequest has none): the campaign is named after its creation time. */
export const CreateCampaignBody = Type.Object({ name: Type.Optional(name), ...campaignFields });
export const UpdateCampaignBody = Type.Object({ name: Type.Optional(name), ...campaignFields });

export const CampaignListQuery = NamedPageQuery;

export const CampaignParams = IdParam('accountId', 'campaignId');

export const QuickCampaignBody = Type.Object({
  name,
  groupId: Type.String({ minLength: 1 }),
  listId: Type.String({ minLength: 1 }),
  message: Type.Object({
    message: Type.String({ minLength: 1, maxLength: MAX_TEXT_LENGTH }),
    media: Type.Optional(media),
  }),
  sendAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'A future time schedules the send.' }),
  ),
});

export const QuickCampaignResult = Type.Object({ campaign: Campaign, job: Type.Optional(Job) });
