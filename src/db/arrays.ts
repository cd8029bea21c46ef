/**
 * PostgreSQL array literals built directly, for the dispatcher's set-based statements (thousands
 * of elements a call): pg's generic serializer runs two regular expressions over every element.
 * Pass the result as a parameter with a cast, e.g. `$1::uuid[]`.
 */

/**
 * Elements that need no quoting: UUIDs and fixed words we produce, numbers, booleans (t/f);
 * null or undefined is NULL. Never for text from outside (use textArray).
 */
export function plainArray(values: readonly (string | number | boolean | null | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null || v === undefined ? 'NULL' : v === true ? 't' : v === false ? 'f' : v;
  }
  return `${out}}`;
}

const SPECIAL = /["\\]/g;

/** Any text elements, each quoted (backslash and double quote escaped); null or undefined is NULL. */
export function textArray(values: readonly (string | null | undefined)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else out += `"${v.includes('"') || v.includes('\\') ? v.replace(SPECIAL, '\\$&') : v}"`;
  }
  return `${out}}`;
}
