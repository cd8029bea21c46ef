/** `T` with every property that may be null made optional and non-null instead. */
export type WithoutNulls<T> = {
  [K in keyof T as null extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as null extends T[K] ? K : never]?: Exclude<T[K], null>;
};

/**
 * The object without its null-valued properties (one level). The published description marks
 * nothing nullable, so an unset field is left out of an answer rather than answered as null.
 */
export function omitNulls<T extends object>(o: T): WithoutNulls<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== null) out[k] = v;
  return out as WithoutNulls<T>;
}

/** A response shape `T` as a presenter builds it: an optional field may also be null (and is then left out). */
export type Nullable<T> = { [K in keyof T]: undefined extends T[K] ? T[K] | null : T[K] };

/**
 * `omitNulls` for a presenter typed by its response schema: `omitNullsAs<Static<typeof X>>({...})`
 * makes a field the schema lacks (which the serializer would drop) or a mismatched one a type error.
 */
export function omitNullsAs<T extends object>(o: Nullable<T>): T {
  return omitNulls(o) as T;
}
