/**
 * The checks of a contact's custom attributes against their limits (schemas/limits.ts), the same for
 * every way attributes are written (JSON create and update, CSV uploads, hosted form submissions,
 * workflow actions). They bound what one contact costs to read, render and serialise: before them a
 * contact could carry 60,000 attributes. SQL enforces two of them as well (sparrow_limit_attributes
 * in a merge).
 */
import { AppError } from '../../errors.ts';
import { attributeText } from '../../messaging/render.ts';
import {
  MAX_ATTRIBUTE_BYTES,
  MAX_ATTRIBUTE_KEY_LENGTH,
  MAX_ATTRIBUTE_VALUE_LENGTH,
  MAX_ATTRIBUTES,
} from '../../schemas/limits.ts';

/**
 * Checks a set of attributes against the limits; `where` prefixes the message (e.g. an upload row).
 * Null values (removals in an update) count only for their name.
 */
export function checkAttributes(attributes: Record<string, unknown>, where = ''): void {
  const fail = (message: string) => {
    throw new AppError('CONT-005', `${where}${message}`);
  };
  const keys = Object.keys(attributes);
  let count = 0;
  let bytes = 0;
  for (const key of keys) {
    if (key.length > MAX_ATTRIBUTE_KEY_LENGTH)
      fail(
        `The attribute name ${JSON.stringify(`${key.slice(0, 40)}…`)} is longer than ${MAX_ATTRIBUTE_KEY_LENGTH} characters.`,
      );
    const value = attributes[key];
    if (value === null || value === undefined) continue;
    if (++count > MAX_ATTRIBUTES)
      fail(`A contact may have at most ${MAX_ATTRIBUTES} attributes (${keys.length} given).`);
    // As a merge field renders it, and as sparrow_limit_attributes counts it (jsonb_each_text).
    const text = attributeText(value);
    if (text.length > MAX_ATTRIBUTE_VALUE_LENGTH)
      fail(
        `The value of attribute ${JSON.stringify(key)} is longer than ${MAX_ATTRIBUTE_VALUE_LENGTH} characters.`,
      );
    bytes += Buffer.byteLength(key) + Buffer.byteLength(text);
    if (bytes > MAX_ATTRIBUTE_BYTES)
      fail(`The attributes of a contact may take at most ${MAX_ATTRIBUTE_BYTES} bytes (names and values).`);
  }
}

/** The SQLSTATE sparrow_limit_attributes() raises (migration 0160; used by db/queries/contacts-merge.ts). */
const OVER_LIMIT_SQLSTATE = 'SPA01';

/** Turns the database's refusal of a merged result into CONT-005; any other error passes through. */
export function rethrowAttributeLimit(err: unknown): never {
  const e = err as { code?: string; message?: string; detail?: string };
  if (e?.code === OVER_LIMIT_SQLSTATE) {
    const row = e.detail ? `Row ${e.detail}: ` : '';
    throw new AppError('CONT-005', `${row}${e.message}`);
  }
  throw err;
}
