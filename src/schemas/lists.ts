import { type TSchema, Type } from '@sinclair/typebox';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { AttributeFilter, AuditStamp, PageQuery } from './common.ts';
import { MAX_CONDITION_VALUES, MAX_FILTER_CONDITIONS, MAX_FILTER_VALUES } from './limits.ts';
import { ClosedObject, MAX_SEARCH_TEXT } from './recipient-filters.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ListSource = Type.Object({
  id: Type.Optional(Type.String()),
  integration: Type.Optional(Type.String()),
  lastSynced: Type.Optional(Type.String()),
});

export const ListFilter = ClosedObject(
  {
    q: Type.Optional(
      Type.String({
        maxLength: MAX_SEARCH_TEXT,
        description: 'Partial match across names, email and mobile.',
      }),
    ),
    attributes: Type.Optional(
      Type.Array(AttributeFilter, {
        maxItems: MAX_FILTER_CONDITIONS,
        description:
          'All must hold. `=` matches any of the values, `!=` none of them, `<` `<=` `>` `>=` compare with the first; ' +
          'numeric when both sides are numbers, else case-insensitive text. ' +
          `At most ${MAX_FILTER_CONDITIONS} conditions, ${MAX_CONDITION_VALUES} values each and ${MAX_FILTER_VALUES} in all.`,
      }),
    ),
    list: Type.Optional(Type.String({ description: 'Only members of this (static) list.' })),
    valid: Type.Optional(Type.Boolean({ description: 'Only contacts with a valid mobile.' })),
    invalid: Type.Optional(Type.Boolean({ description: 'Only contacts with an invalid mobile.' })),
    blocked: Type.Optional(Type.Boolean({ description: 'Only blocked contacts.' })),
    unblocked: Type.Optional(Type.Boolean({ description: 'Only contacts not blocked.' })),
    optIn: Type.Optional(Type.Boolean({ description: 'Only contacts opted in and not opted out.' })),
  },
  {
    description:
      "A smart list's filter: its members are the contacts matching it when the list is read or sent to. " +
      'Unknown keys are refused (400), and so is a filter naming no condition (LIST-004): a smart list of every ' +
      'contact is not made by accident; to send to everyone, a send says `filters: {"all": true}`.',
  },
);

export const DoubleOptIn = Type.Object({
  enabled: Type.Boolean(),
  prompt: Type.Optional(Type.String()),
});

export const List = Type.Object({
  id: Type.String(),
  name: Type.String(),
  source: Type.Optional(ListSource),
  keyword: Type.Optional(Type.String()),
  doubleOptIn: DoubleOptIn,
  filter: Type.Optional(ListFilter),
  optInConfirmation: Type.Optional(Type.String()),
  size: Type.Integer({ description: 'Member count (a smart list: contacts matching its filter now).' }),
  created: AuditStamp,
  updated: AuditStamp,
});

const listFields = {
  source: Type.Optional(Nullable(ListSource)),
  keyword: Type.Optional(Nullable(Type.String({ maxLength: 160 }))),
  doubleOptIn: Type.Optional(
    Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      prompt: Type.Optional(Nullable(Type.String({ maxLength: MAX_TEXT_LENGTH }))),
    }),
  ),
  filter: Type.Optional(Nullable(ListFilter)),
  optInConfirmation: Type.Optional(Nullable(Type.String({ maxLength: MAX_TEXT_LENGTH }))),
};

export const CreateListBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  ...listFields,
});
export const UpdateListBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ...listFields,
});

export const ListListQuery = Type.Object({
  ...PageQuery,
  name: Type.Optional(Type.String({ description: 'Partial, case-insensitive match.' })),
});

export const AddContactsBody = Type.Object({
  contactIds: Type.Array(Type.String(), { minItems: 1, maxItems: 10_000 }),
});

export const AddContactsResult = Type.Object({
  submitted: Type.Integer(),
  added: Type.Integer(),
  alreadyMember: Type.Integer(),
  notFound: Type.Integer({ description: 'Ids that name no contact of the account.' }),
});
