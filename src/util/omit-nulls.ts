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
