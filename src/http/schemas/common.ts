import { type TSchema, Type } from '@sinclair/typebox';

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

/** Query parameters of every list operation: offset >= 0, limit 1..100. */
export const PageQuery = {
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Results to skip.' }),
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

export const AttributeFilter = Type.Object({
  attribute: Type.String(),
  comparator: Type.Union([
    Type.Literal('='),
    Type.Literal('!='),
    Type.Literal('<'),
    Type.Literal('<='),
    Type.Literal('>'),
    Type.Literal('>='),
  ]),
  value: Type.Array(Type.String()),
});

export const ErrorObject = Type.Object({ code: Type.String(), description: Type.String() });

export const IdParam = (...names: string[]) =>
  Type.Object(Object.fromEntries(names.map((n) => [n, Type.String({ minLength: 1 })])));

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
