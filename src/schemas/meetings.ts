import { type TSchema, Type } from '@sinclair/typebox';
import { AuditStamp, IdParam, NamedPageQuery, PageQuery } from './common.ts';

// Null first: with type coercion on, a null tried against a string branch first would become "".
const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);

const Time = Type.Object({
  hour: Type.Integer({ minimum: 0, maximum: 24 }),
  minute: Type.Integer({ minimum: 0, maximum: 59 }),
});
const Range = Type.Object({ start: Time, end: Time });
const day = Type.Optional(Type.Array(Range, { maxItems: 12 }));

/** Weekly availability in the officeHours `times` shape, read in the event's time zone. */
export const Availability = Type.Object(
  { sun: day, mon: day, tue: day, wed: day, thu: day, fri: day, sat: day },
  {
    description:
      'Ranges per weekday, local time in `timezone`; `end` may be 24:00. Default (on create): mon–fri 09:00–17:00.',
  },
);

/** A host or attendee as shown: `mobile` is E.164; an attendee with a mobile has their contact's id. */
export const Person = Type.Object({
  id: Type.String(),
  email: Type.Optional(Type.String()),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
  mobile: Type.Optional(Type.String({ description: 'E.164.' })),
});

const MobileInput = Type.Union([
  Type.String({ minLength: 1, maxLength: 64, description: 'E.164 (or international with +).' }),
  Type.Object({
    number: Type.String({ minLength: 1, maxLength: 64 }),
    country: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })),
  }),
]);

const PersonInput = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  firstName: Type.Optional(Type.String({ maxLength: 100 })),
  lastName: Type.Optional(Type.String({ maxLength: 100 })),
  mobile: Type.Optional(MobileInput),
});

const Reminder = Type.Object({
  minutesBefore: Type.Integer({ minimum: 1, maximum: 10080, description: 'Minutes before the start.' }),
  sms: Type.Boolean({ description: 'Whether the reminder is texted to attendees with a mobile.' }),
});

export const MeetingEvent = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  slug: Type.String({ description: 'The public booking address: `{externals}/v1/meetingevents/{slug}`.' }),
  durations: Type.Array(Type.Integer(), { description: 'Meeting lengths offered, in minutes.' }),
  slotIncrement: Type.Integer({ description: 'Minutes between offered start times.' }),
  timezone: Type.String(),
  availability: Availability,
  bufferMinutes: Type.Integer(),
  minimumNoticeMinutes: Type.Integer(),
  bookingHorizonDays: Type.Integer(),
  hosts: Type.Array(Person),
  active: Type.Boolean(),
  reminder: Type.Optional(Reminder),
  created: AuditStamp,
  updated: AuditStamp,
});

const eventFields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  slotIncrement: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 5,
        maximum: 1440,
        description: 'Minutes between offered start times (default: the shortest duration).',
      }),
    ),
  ),
  availability: Type.Optional(Availability),
  bufferMinutes: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1440, description: 'Free minutes kept after each meeting.' }),
  ),
  minimumNoticeMinutes: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 525600,
      description: 'How long before its start a meeting can be booked.',
    }),
  ),
  bookingHorizonDays: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 365,
      description: 'How many days ahead meetings can be booked (default 60).',
    }),
  ),
  hosts: Type.Optional(Type.Array(PersonInput, { maxItems: 20 })),
  active: Type.Optional(Type.Boolean()),
  reminder: Type.Optional(
    Nullable(
      Type.Object({
        minutesBefore: Reminder.properties.minutesBefore,
        sms: Type.Optional(Type.Boolean({ description: 'Default true.' })),
      }),
    ),
  ),
};
const name = Type.String({ minLength: 1, maxLength: 200 });
const slug = Type.String({
  pattern: '^[a-z0-9-]{3,64}$',
  description: 'Lowercase letters, digits and `-`, 3..64; unique across the service.',
});
const durations = Type.Array(Type.Integer({ minimum: 5, maximum: 1440 }), { minItems: 1, maxItems: 10 });
const timezone = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'IANA time zone, e.g. America/New_York.',
});

export const CreateMeetingEventBody = Type.Object({ name, slug, durations, timezone, ...eventFields });
export const UpdateMeetingEventBody = Type.Object({
  name: Type.Optional(name),
  slug: Type.Optional(slug),
  durations: Type.Optional(durations),
  timezone: Type.Optional(timezone),
  ...eventFields,
});

export const MeetingEventParams = IdParam('accountId', 'meetingEventId');
export const MeetingEventListQuery = NamedPageQuery;

export const MeetingStatus = Type.Union(
  [Type.Literal('upcoming'), Type.Literal('cancelled'), Type.Literal('completed')],
  { description: '`upcoming`; `cancelled`; `completed` once its end has passed.' },
);

export const Meeting = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  status: MeetingStatus,
  hosts: Type.Array(Person),
  attendees: Type.Array(Person),
  eventId: Type.Optional(
    Type.String({ description: 'The event type it was booked on (absent once deleted).' }),
  ),
  timezone: Type.String(),
  notes: Type.Optional(Type.String()),
  cancelled: Type.Optional(Type.String({ format: 'date-time' })),
  created: AuditStamp,
  updated: AuditStamp,
});

export const MeetingParams = IdParam('accountId', 'meetingId');
export const MeetingListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(MeetingStatus),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Meetings starting at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Meetings starting before.' })),
  eventId: Type.Optional(Type.String({ maxLength: 64, description: 'Meetings of this event type.' })),
});

/** What the public booking page shows of an event type. */
export const PublicMeetingEvent = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  durations: Type.Array(Type.Integer()),
  slotIncrement: Type.Integer(),
  timezone: Type.String(),
  availability: Availability,
  minimumNoticeMinutes: Type.Integer(),
  bookingHorizonDays: Type.Integer(),
  hosts: Type.Array(
    Type.Object({ firstName: Type.Optional(Type.String()), lastName: Type.Optional(Type.String()) }),
  ),
});

export const SlugParam = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });

export const SlotsQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
  to: Type.Optional(
    Type.String({ format: 'date-time', description: 'Default: from + 7 days; at most 31 days after from.' }),
  ),
  duration: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1440, description: 'Minutes (default: the shortest offered).' }),
  ),
});

export const SlotList = Type.Object({
  slug: Type.String(),
  timezone: Type.String(),
  duration: Type.Integer(),
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  slots: Type.Array(
    Type.Object({ start: Type.String({ format: 'date-time' }), end: Type.String({ format: 'date-time' }) }),
  ),
});

export const BookingBody = Type.Object({
  start: Type.String({ format: 'date-time', description: 'One of the free slots’ start times.' }),
  duration: Type.Integer({ minimum: 1, maximum: 1440, description: 'Minutes; one the event type offers.' }),
  attendees: Type.Array(PersonInput, {
    maxItems: 10,
    description: 'At least one, each with an email or a mobile.',
  }),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
});
