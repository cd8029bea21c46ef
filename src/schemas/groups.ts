import { Type } from '@sinclair/typebox';
import { AuditStamp } from './common.ts';
import { Channels, DailyCap, DailyCapInput, GroupRef, PhoneNumber } from './numbers.ts';

const Time = Type.Object({
  hour: Type.Integer({ minimum: 0, maximum: 23 }),
  minute: Type.Integer({ minimum: 0, maximum: 59 }),
});
const Range = Type.Object({ start: Time, end: Time });
const Day = Type.Array(Range, { maxItems: 24 });

/** When the group's numbers are staffed: times per weekday in an IANA time zone. */
export const OfficeHours = Type.Object({
  active: Type.Boolean(),
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'IANA time zone, e.g. America/New_York.',
  }),
  times: Type.Object({
    sun: Type.Optional(Day),
    mon: Type.Optional(Day),
    tue: Type.Optional(Day),
    wed: Type.Optional(Day),
    thu: Type.Optional(Day),
    fri: Type.Optional(Day),
    sat: Type.Optional(Day),
  }),
});

const Mobile = Type.Object({
  country: Type.Optional(Type.String()),
  number: Type.String(),
  verified: Type.Optional(Type.String({ format: 'date-time' })),
  valid: Type.Optional(Type.Boolean()),
  lineType: Type.Optional(Type.String()),
});

/**
 * A console user of the account in the group: e-mail, name and terms as the person has them now,
 * `role` their role in the account; `mobile` as given for this group.
 */
export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.Optional(Type.String()),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    role: Type.Optional(Type.String()),
    mobile: Type.Optional(Mobile),
    tacAccepted: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    description:
      'A console user of the account (`GET …/users`): `id` is theirs, `role` their role in the account.',
  },
);

/**
 * A console user named in a group request, by `id` or `email`; the other fields are the person's
 * own and are not changed here (`mobile` is kept for the group).
 */
export const UserInput = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 64 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    firstName: Type.Optional(Type.String({ maxLength: 200 })),
    lastName: Type.Optional(Type.String({ maxLength: 200 })),
    role: Type.Optional(Type.String({ maxLength: 100 })),
    mobile: Type.Optional(
      Type.Object({
        number: Type.String({ minLength: 1, maxLength: 32 }),
        country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
      }),
    ),
    tacAccepted: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    description:
      'A console user of the account, named by `id` or `email` (404 USER-005 when the account has no such user: ' +
      'invite them first). `firstName`, `lastName`, `role` and `tacAccepted` are the person’s own and are ignored ' +
      'here; `mobile` is kept for this group.',
  },
);

const Ref = Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) });

export const Notification = Type.Object({
  destination: Type.Optional(Ref),
  integration: Type.Optional(Type.String({ maxLength: 200 })),
  group: Type.Optional(Ref),
});

/** One sender of the group: a phone number it sends from. */
export const Sender = Type.Object({
  id: Type.String(),
  type: Type.String({ description: '`phonenumber`.' }),
  subType: Type.String({ description: 'The number type: `local`, `mobile` or `tollfree`.' }),
  status: Type.String(),
  identifier: Type.String({ description: 'The E.164 number.' }),
  created: AuditStamp,
  updated: AuditStamp,
  channels: Channels,
  groups: Type.Array(GroupRef),
});

/** The interface's phone-number Group. */
export const Group = Type.Object({
  id: Type.String(),
  name: Type.String(),
  phoneNumbers: Type.Array(PhoneNumber),
  notifications: Type.Array(Notification),
  tags: Type.Array(Type.String()),
  users: Type.Array(User),
  senders: Type.Array(Sender),
  officeHours: Type.Optional(OfficeHours),
  isDefault: Type.Boolean(),
  useSharedPool: Type.Boolean({
    description: 'Send from every number of the account, not only the group’s.',
  }),
  dailyCap: DailyCap(
    'the group’s numbers together (whichever send picked them; a number in two capped groups counts in both)',
  ),
  created: AuditStamp,
  updated: AuditStamp,
});

const NumberRef = Type.Union([
  Type.String({ minLength: 1, maxLength: 32, description: 'A number the account holds (E.164).' }),
  Type.Object({ id: Type.Optional(Type.String()), number: Type.Optional(Type.String()) }),
]);
const NumberRefs = Type.Array(NumberRef, {
  maxItems: 1000,
  description: 'The numbers of the group: `{id}` objects or E.164 strings of numbers the account holds.',
});

const groupFields = {
  phoneNumbers: Type.Optional(NumberRefs),
  'phoneNumbers?': Type.Optional(NumberRefs),
  notifications: Type.Optional(Type.Array(Notification, { maxItems: 100 })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
  users: Type.Optional(Type.Array(UserInput, { maxItems: 100 })),
  officeHours: Type.Optional(Type.Union([OfficeHours, Type.Null()])),
  isDefault: Type.Optional(Type.Boolean()),
  useSharedPool: Type.Optional(Type.Boolean()),
  dailyCap: Type.Optional(
    DailyCapInput('the group’s numbers together, as a carrier caps a brand or campaign'),
  ),
};

export const CreateGroupBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  ...groupFields,
});

export const UpdateGroupBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ...groupFields,
});
