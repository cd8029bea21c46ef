import { type Static, Type } from '@sinclair/typebox';
import { AuditStamp, PageQuery } from './common.ts';

const Kind = Type.Union(
  [Type.Literal('10dlc-brand'), Type.Literal('10dlc-campaign'), Type.Literal('toll-free-verification')],
  { description: 'A 10DLC brand, a 10DLC campaign (of a brand: `parentId`), or a toll-free verification.' },
);
const Status = Type.Union(
  [
    Type.Literal('draft'),
    Type.Literal('submitted'),
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('suspended'),
  ],
  { description: 'Where the registration stands with the carrier or registry, as last recorded.' },
);
// One schema of two types, not a union: the validator coerces types, and in a union a null would
// pass as 0 or "" (as in AccountUpdateBody).
const text = (max: number, description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: max, description });
const cap = (description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, maximum: 1_000_000_000, description });
const nullableId = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 64, description });

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'What the account calls it.' }),
  externalId: Type.Optional(
    text(100, 'The id the carrier or registry gave it (e.g. a TCR brand or campaign id).'),
  ),
  parentId: Type.Optional(nullableId('A 10DLC campaign’s brand (its registration id).')),
  status: Type.Optional(Status),
  useCase: Type.Optional(text(100, 'The declared use case (e.g. MARKETING, 2FA).')),
  phoneNumberIds: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 1000,
      description: 'The account’s numbers it covers.',
    }),
  ),
  groupId: Type.Optional(nullableId('The group whose numbers it covers.')),
  messagesPerSecond: Type.Optional(cap('The throughput the carrier granted, per second.')),
  dailyCap: Type.Optional(
    cap(
      'The daily message cap the carrier granted, as a record: the dispatcher does not hold it. It holds the ' +
        '`dailyCap` of numbers and groups (PUT …/phonenumbers/{id}, PUT …/groups/{id}): set it on the group or ' +
        'numbers this registration covers.',
    ),
  ),
  notes: Type.Optional(text(2000, 'Free notes (a rejection reason, a ticket).')),
};

export const CreateRegistrationBody = Type.Object({ kind: Kind, ...fields }, { additionalProperties: false });
export const UpdateRegistrationBody = Type.Object(
  { ...fields, name: Type.Optional(fields.name) },
  { additionalProperties: false },
);
export const RegistrationListQuery = Type.Object({ ...PageQuery, kind: Type.Optional(Kind) });

export const Registration = Type.Object({
  id: Type.String(),
  kind: Kind,
  name: Type.String(),
  externalId: Type.Optional(Type.String()),
  parentId: Type.Optional(Type.String()),
  status: Status,
  useCase: Type.Optional(Type.String()),
  phoneNumbers: Type.Array(Type.Object({ id: Type.String(), number: Type.String() })),
  group: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
  messagesPerSecond: Type.Optional(Type.Integer()),
  dailyCap: Type.Optional(Type.Integer()),
  notes: Type.Optional(Type.String()),
  created: AuditStamp,
  updated: AuditStamp,
});

export type RegistrationKind = Static<typeof Kind>;
export type RegistrationStatus = Static<typeof Status>;
