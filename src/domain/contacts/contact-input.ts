import type { ContactFields, ContactTag } from '../../db/queries/contacts.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { parseMobile, readingCountry } from '../../messaging/phone.ts';
import { checkAttributes } from './attribute-limits.ts';

/** A contact as a client sends it (JSON body, or one CSV row once its columns are mapped). */
export interface ContactInput {
  mobile?: string | { number: string; country?: string } | null;
  /** The mobile's country when the mobile is a plain string (CSV `country` column). */
  country?: string;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  attributes?: Record<string, unknown>;
  tags?: (string | { tag: string; visible?: boolean })[];
  optIn?: string | boolean | null;
  blocked?: string | boolean | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The longest email address (RFC 5321: 64 + 1 + 255), as the JSON schema allows. */
const MAX_EMAIL_LENGTH = 320;
/** The longest first or last name. */
const MAX_NAME_LENGTH = 200;

function bad(code: ErrorCode, message: string): never {
  throw new AppError(code, message);
}

function timestamp(
  value: string | boolean | null | undefined,
  field: string,
  now: Date,
): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === false) return null;
  if (value === true) return now;
  const text = value.trim();
  if (text === '' || text.toLowerCase() === 'false') return null;
  if (text.toLowerCase() === 'true') return now;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) bad('VAL-001', `${field} must be a timestamp (ISO 8601) or a boolean.`);
  return d;
}

/** Normalises tags: plain strings become visible tags; a repeated tag keeps its last form. */
export function normaliseTags(tags: NonNullable<ContactInput['tags']>): ContactTag[] {
  const byTag = new Map<string, ContactTag>();
  for (const t of tags) {
    const tag = (typeof t === 'string' ? t : t.tag).trim();
    if (tag === '') continue;
    byTag.delete(tag);
    byTag.set(tag, { tag, visible: typeof t === 'string' ? true : t.visible !== false });
  }
  return [...byTag.values()];
}

/**
 * Validates and normalises a contact input into stored fields. The mobile is parsed with
 * libphonenumber, a national number read by the one rule of messaging/phone.ts (readingCountry: the
 * given `country`, else `opts.homeCountry`, the account's, else US); an invalid one is CONT-001.
 * Throws AppError on the first problem.
 */
export function toContactFields(
  input: ContactInput,
  opts: { requireMobile: boolean; now?: Date; homeCountry?: string },
): ContactFields {
  const now = opts.now ?? new Date();
  const f: ContactFields = {};
  if (input.mobile !== undefined && input.mobile !== null && input.mobile !== '') {
    const raw =
      typeof input.mobile === 'string' ? { number: input.mobile, country: input.country } : input.mobile;
    const parsed = parseMobile(String(raw.number ?? ''), readingCountry(raw.country, opts.homeCountry));
    if (!parsed) bad('CONT-001', `Invalid mobile number: ${JSON.stringify(raw.number ?? '')}.`);
    f.mobile = {
      number: parsed.number,
      country: parsed.country,
      valid: parsed.valid,
      lineType: parsed.lineType,
    };
  } else if (opts.requireMobile) {
    bad('CONT-001', 'A mobile number is required.');
  } else if (input.mobile === null || input.mobile === '') {
    bad('CONT-001', 'The mobile number cannot be removed.');
  }
  for (const key of ['firstName', 'lastName'] as const) {
    const v = input[key];
    if (v !== undefined) f[key] = v === null || v.trim() === '' ? null : v.trim();
    // As the JSON schema says; a CSV cell could otherwise carry 64 Ki characters.
    if ((f[key]?.length ?? 0) > MAX_NAME_LENGTH)
      bad('VAL-001', `${key} has at most ${MAX_NAME_LENGTH} characters.`);
  }
  if (input.email !== undefined) {
    const email = input.email === null ? '' : input.email.trim();
    // The length first: the pattern is quadratic in the text (a CSV cell may hold 64 Ki characters).
    if (email.length > MAX_EMAIL_LENGTH)
      bad('VAL-001', `An email address has at most ${MAX_EMAIL_LENGTH} characters.`);
    if (email !== '' && !EMAIL.test(email))
      bad('VAL-001', `Invalid email address: ${JSON.stringify(email)}.`);
    f.email = email === '' ? null : email;
  }
  if (input.attributes !== undefined) {
    checkAttributes(input.attributes);
    f.attributes = input.attributes;
  }
  if (input.tags !== undefined) f.tags = normaliseTags(input.tags);
  f.optIn = timestamp(input.optIn, 'optIn', now);
  f.blocked = timestamp(input.blocked, 'blocked', now);
  return f;
}
