import { type ObjectOptions, type TProperties, Type } from '@sinclair/typebox';

/**
 * An object whose unknown keys are a 400 naming them (`propertyNames`), for the places where a typo
 * would change what happens — a recipient selector above all. The rest of the API keeps the open
 * schema (unknown properties ignored).
 */
export const ClosedObject = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { ...options, propertyNames: { enum: Object.keys(properties) } });

/** `all: true`: the explicit selector for every contact of the account (send and campaign filters). */
export const AllContacts = Type.Optional(
  Type.Boolean({
    description:
      'true: every contact of the account. Required to send to everyone (a filter with no condition is ' +
      'refused with MSG-006); cannot be combined with tags, attributes, q or a list.',
  }),
);

/** Longest `filters.q` (free text of a send or campaign selector). */
export const MAX_SEARCH_TEXT = 200;

/** `q`: the free-text condition of a send or campaign selector (a smart list's `q`). */
export const SearchText = Type.Optional(
  Type.String({
    maxLength: MAX_SEARCH_TEXT,
    description:
      'Only contacts whose first name, last name, e-mail or mobile contain this text (case-insensitive; ' +
      "`%`, `_` and `\\` match literally), as a smart list filter's `q`. Empty or blank: no condition.",
  }),
);
