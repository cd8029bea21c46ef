import {
  type SchemaOptions,
  type TLiteral,
  type TSchema,
  type TString,
  type TUnion,
  Type,
} from '@sinclair/typebox';
import type { ErrorCode } from '../errors.ts';
import {
  MAX_ATTRIBUTE_KEY_LENGTH,
  MAX_ATTRIBUTE_VALUE_LENGTH,
  MAX_CONDITION_VALUES,
  MAX_FILTER_VALUES,
} from './limits.ts';

/** Audit stamp `{at, by}` used as `created` and `updated`. */
export const AuditStamp = Type.Object({
  at: Type.String({ format: 'date-time' }),
  by: Type.Object({
    id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    source: Type.Optional(Type.String()),
    subSource: Type.Optional(Type.String()),
  }),
});

export const Pagination = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  hasNext: Type.Boolean(),
  totalCount: Type.Integer(),
});

/** The most results one page of a list operation can hold (`limit` 1..PAGE_LIMIT_MAX). */
export const PAGE_LIMIT_MAX = 100;
/** The page size when `limit` is absent. */
export const PAGE_LIMIT_DEFAULT = 20;

/**
 * The largest `offset` a list accepts. PostgreSQL takes a bigint, but a value past 2^63 overflows
 * it, and skipping a billion rows is no page anyone asks for: above this the request is a 400.
 */
export const MAX_OFFSET = 1_000_000_000;

/** The `offset` query parameter of every paged operation: an integer 0..MAX_OFFSET. */
export const OffsetQuery = (description = 'Results to skip.') =>
  Type.Integer({
    minimum: 0,
    maximum: MAX_OFFSET,
    default: 0,
    description: `${description} At most ${MAX_OFFSET}.`,
  });

/** Query parameters of every list operation: offset 0..MAX_OFFSET, limit 1..100. */
export const PageQuery = {
  offset: OffsetQuery(),
  limit: Type.Integer({
    minimum: 1,
    maximum: PAGE_LIMIT_MAX,
    default: PAGE_LIMIT_DEFAULT,
    description: `Maximum results (1..${PAGE_LIMIT_MAX}).`,
  }),
};

/** PageQuery plus `name`, a partial, case-insensitive match (list operations of named resources). */
export const NamedPageQuery = Type.Object({
  ...PageQuery,
  name: Type.Optional(Type.String({ maxLength: 200, description: 'Partial, case-insensitive match.' })),
});

/**
 * One of the given strings (`anyOf` of `const`s). Typed as the union of the values: a union built
 * from an array's `map` would otherwise type as `never` under the type provider.
 */
export const LiteralUnion = <const T extends readonly string[]>(values: T, options?: SchemaOptions) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<[TLiteral<T[number]>]>;

export const ErrorEnvelope = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    description: Type.String(),
    details: Type.Optional(Type.Unknown()),
  }),
});

export const MediaItem = Type.Object({
  url: Type.String(),
  type: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
});

/**
 * One attribute condition (smart lists, sends, campaigns, bulk jobs). Its values are bounded
 * (MAX_CONDITION_VALUES, and MAX_FILTER_VALUES over a filter's conditions: checkConditionValues),
 * and so are its names and values (no attribute is longer); unknown keys are refused.
 */
export const AttributeFilter = Type.Object(
  {
    attribute: Type.String({ maxLength: MAX_ATTRIBUTE_KEY_LENGTH }),
    comparator: Type.Union([
      Type.Literal('='),
      Type.Literal('!='),
      Type.Literal('<'),
      Type.Literal('<='),
      Type.Literal('>'),
      Type.Literal('>='),
    ]),
    value: Type.Array(Type.String({ maxLength: MAX_ATTRIBUTE_VALUE_LENGTH }), {
      maxItems: MAX_CONDITION_VALUES,
      description: `At most ${MAX_CONDITION_VALUES} values, and ${MAX_FILTER_VALUES} over all the conditions of a filter.`,
    }),
  },
  { propertyNames: { enum: ['attribute', 'comparator', 'value'] } },
);

export const ErrorObject = Type.Object({ code: Type.String(), description: Type.String() });

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** A record id in a request: a UUID, as every id the service makes; anything else never reaches a query. */
export const Id = (description?: string) =>
  Type.String({ format: 'uuid', pattern: UUID_PATTERN, ...(description ? { description } : {}) });

/**
 * The path ids and the 404 each answers when malformed (`""`, `abc`, 100 digits…): a value that
 * cannot be an id names no record, so it is answered like an unknown one, before any query. Path
 * parameters not listed here are not UUIDs (`webhookId` takes a URL too, `edgeId` is the client's,
 * `sourceId` may be `direct`; `accountId` is checked against the token: 403 AUTH-003).
 */
export const PATH_ID_NOT_FOUND = {
  phoneNumberId: 'NUM-001',
  groupId: 'GRP-001',
  contactId: 'CONT-002',
  listId: 'LIST-001',
  deliveryId: 'HOOK-003',
  conversationId: 'CONV-002',
  savedReplyId: 'CONV-005',
  messageId: 'MSG-001',
  templateId: 'TMPL-001',
  campaignId: 'CAMP-001',
  dripCampaignId: 'DRIP-001',
  callId: 'CALL-001',
  meetingEventId: 'MEET-001',
  meetingId: 'MEET-002',
  workflowId: 'WF-001',
  formId: 'FORM-001',
  linkId: 'LINK-001',
  autoresponderId: 'AUTO-001',
  userId: 'USER-005',
  credentialId: 'SMPP-001',
  routeId: 'ROUTE-001',
  importId: 'CONT-006',
  integrationId: 'INT-001',
} as const satisfies Record<string, ErrorCode>;

/** Path parameters: the ids of PATH_ID_NOT_FOUND as UUIDs, any other as a non-empty string. */
export const IdParam = <N extends string>(...names: N[]) =>
  Type.Object(
    Object.fromEntries(
      names.map((n) => [n, n in PATH_ID_NOT_FOUND ? Id() : Type.String({ minLength: 1 })]),
    ) as Record<N, TString>,
  );

/** `{success: true, data: T}` */
export const Envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

/** `{success: true, data: T[], pagination}` */
export const Collection = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: Pagination });

export const Success = Type.Object({ success: Type.Literal(true) });

/** The error responses a route can give, each in the error envelope. */
export function errorResponses(...codes: number[]): Record<number, typeof ErrorEnvelope> {
  const out: Record<number, typeof ErrorEnvelope> = {};
  for (const c of [400, 401, 403, 404, 413, 415, 429, ...codes]) out[c] = ErrorEnvelope;
  return out;
}
