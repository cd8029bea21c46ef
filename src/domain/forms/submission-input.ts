import type { FormFieldDef, FormRow } from '../../db/queries/forms.ts';
import { type ParsedMobile, parseMobile } from '../../messaging/phone.ts';

/** The hidden field that carries the page the form was embedded in. */
export const PAGE_URL_FIELD = '_pageUrl';
/** The consent checkbox, shown when the form has consent text. */
export const CONSENT_FIELD = '_consent';

/** A submission that passed validation, ready to become a contact and a conversion. */
export interface ValidSubmission {
  mobile: ParsedMobile;
  firstName?: string;
  lastName?: string;
  email?: string;
  /** Custom fields, by name (numbers and checkboxes typed). */
  attributes: Record<string, string | number | boolean>;
  /** Every defined field with a value, as recorded on the conversion (mobile in E.164). */
  submittedFields: Record<string, unknown>;
  consent: boolean;
}

/** The outcome of validating a submission: the values, or a message per offending field. */
export type SubmissionCheck =
  | { ok: true; value: ValidSubmission }
  | { ok: false; errors: Record<string, string> };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const NUMBER = /^-?\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_LENGTH: Record<FormFieldDef['type'], number> = {
  text: 500,
  textarea: 5000,
  email: 320,
  tel: 64,
  number: 40,
  date: 10,
  checkbox: 10,
  select: 200,
};
const STANDARD_MAX = 200;

/** A submitted value as text: strings trimmed, numbers and booleans spelled out, anything else undefined. */
export function submittedText(v: unknown): string | undefined {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function checked(v: unknown): boolean {
  const t = submittedText(v)?.toLowerCase();
  return t === 'on' || t === 'true' || t === '1' || t === 'yes';
}

function validDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** One field's value, or the message that explains why it is refused. */
function checkField(
  f: FormFieldDef,
  raw: unknown,
  country: string,
): { value?: string | number | boolean | ParsedMobile; error?: string } {
  if (f.type === 'checkbox') {
    const on = checked(raw);
    if (f.required && !on) return { error: 'Please tick this box.' };
    return { value: on };
  }
  const text = submittedText(raw);
  if (text === undefined) return { error: 'Enter text here.' };
  if (text === '') return f.required ? { error: 'This field is required.' } : {};
  const max = f.name in { firstName: 1, lastName: 1 } ? STANDARD_MAX : MAX_LENGTH[f.type];
  if (text.length > max) return { error: `Use at most ${max} characters.` };
  switch (f.type) {
    case 'tel': {
      const parsed = parseMobile(text, country);
      return parsed ? { value: parsed } : { error: 'Enter a valid mobile number.' };
    }
    case 'email':
      return EMAIL.test(text) ? { value: text } : { error: 'Enter a valid email address.' };
    case 'number':
      return NUMBER.test(text) && Number.isFinite(Number(text))
        ? { value: Number(text) }
        : { error: 'Enter a number.' };
    case 'date':
      return validDate(text) ? { value: text } : { error: 'Enter a date (YYYY-MM-DD).' };
    case 'select':
      return f.options?.includes(text) ? { value: text } : { error: 'Choose one of the options.' };
    default:
      return { value: text };
  }
}

/**
 * Validates a submission against the form's fields (mobile through libphonenumber, national
 * numbers read in the form's default country) and its consent checkbox. Unknown keys are ignored.
 */
export function checkSubmission(form: FormRow, values: Record<string, unknown>): SubmissionCheck {
  const errors: Record<string, string> = {};
  const out: ValidSubmission = {
    mobile: undefined as unknown as ParsedMobile,
    attributes: {},
    submittedFields: {},
    consent: false,
  };
  for (const f of form.fields) {
    const { value, error } = checkField(f, values[f.name], form.default_country);
    if (error) {
      errors[f.name] = error;
      continue;
    }
    if (value === undefined) continue;
    if (f.name === 'mobile') {
      out.mobile = value as ParsedMobile;
      out.submittedFields.mobile = out.mobile.number;
      continue;
    }
    out.submittedFields[f.name] = value;
    if (f.name === 'firstName' || f.name === 'lastName' || f.name === 'email') out[f.name] = value as string;
    else out.attributes[f.name] = value as string | number | boolean;
  }
  if (form.consent_text?.trim()) {
    out.consent = checked(values[CONSENT_FIELD]);
    if (!out.consent) errors[CONSENT_FIELD] = 'Please give your consent to continue.';
    else out.submittedFields[CONSENT_FIELD] = true;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: out };
}

/** An http(s) URL of at most 2048 characters, normalised; anything else undefined. */
export function pageUrlOf(value: unknown): string | undefined {
  const text = submittedText(value);
  if (!text || text.length > 2048) return undefined;
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
