/**
 * Published types, and the check of an answer against one. Not a test file itself.
 *
 * A shape is a primitive name, an object's fields, or `[item]` for an array. A field whose name
 * starts with `!` must be present; the others may be left out. Extra fields are allowed. A null is
 * never allowed where a type is given (the published description marks nothing nullable: a strict
 * generated client rejects it), and `nullsIn` finds a null anywhere else in an answer.
 */

/** A published type. */
export type Shape = Prim | { [field: string]: Shape } | [Shape];
/** The primitive published types (`timestamp` is an ISO 8601 date-time string). */
export type Prim = 'string' | 'number' | 'integer' | 'boolean' | 'timestamp' | 'object' | 'array';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
const typeName = (s: Shape): string => (Array.isArray(s) ? 'array' : typeof s === 'object' ? 'object' : s);

const PRIMS: Record<Prim, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  timestamp: (v) => typeof v === 'string' && TIMESTAMP.test(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v),
};

/** The ways `value` departs from `shape`, each named by its path. */
export function mismatches(value: unknown, shape: Shape, path = 'data'): string[] {
  if (value === null) return [`${path} is null (published type: ${typeName(shape)})`];
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path} is ${kind(value)}, not an array`];
    return value.flatMap((v, i) => mismatches(v, shape[0], `${path}[${i}]`));
  }
  if (typeof shape === 'object') {
    if (typeof value !== 'object' || Array.isArray(value))
      return [`${path} is ${kind(value)}, not an object`];
    const obj = value as Record<string, unknown>;
    return Object.entries(shape).flatMap(([key, s]) => {
      const name = key.replace(/^!/, '');
      if (!(name in obj)) return key.startsWith('!') ? [`${path}.${name} is missing`] : [];
      return mismatches(obj[name], s, `${path}.${name}`);
    });
  }
  return PRIMS[shape](value) ? [] : [`${path} is ${kind(value)} ${JSON.stringify(value)}, not ${shape}`];
}

/** The paths of every null in `value` (an unset field is left out of an answer, never null). */
export function nullsIn(value: unknown, path = ''): string[] {
  if (value === null) return [`${path || '(answer)'} is null`];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullsIn(v, `${path}[${i}]`));
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      nullsIn(v, path ? `${path}.${k}` : k),
    );
  return [];
}
