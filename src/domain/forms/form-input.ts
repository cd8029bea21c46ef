import type { Queryable } from '../../db/client.ts';
import type { FormFieldDef, FormFields } from '../../db/queries/forms.ts';
import { isSmartList } from '../../db/queries/lists.ts';
import { fail } from '../../errors.ts';
import { requireList } from '../lists/get-list.ts';
import { findFormTemplate } from './form-templates.ts';

/** A field as a client defines it (type and label may be left out for the standard fields). */
export interface FormFieldInput {
  name: string;
  label?: string;
  type?: FormFieldDef['type'];
  required?: boolean;
  options?: string[];
}

/** What a caller gives to create or update a form. */
export interface FormInput {
  name?: string;
  description?: string | null;
  templateId?: string;
  fields?: FormFieldInput[];
  listId?: string | null;
  defaultCountry?: string;
  confirmationMessage?: string | null;
  consentText?: string | null;
  submitLabel?: string | null;
  successMessage?: string | null;
}

/** Fields that map to the contact itself; every other field is stored as a custom attribute. */
export const STANDARD_FIELDS: Record<string, { label: string; type: FormFieldDef['type'] }> = {
  mobile: { label: 'Mobile number', type: 'tel' },
  firstName: { label: 'First name', type: 'text' },
  lastName: { label: 'Last name', type: 'text' },
  email: { label: 'Email', type: 'email' },
};

/** Names the hosted page uses itself (the honeypot); a field cannot take them. */
export const HONEYPOT_FIELD = 'homepage';

const MAX_FIELDS = 30;

/**
 * Normalises a form's field list: the standard fields get their fixed types, `mobile` is always
 * present (prepended when missing) and required, names are unique (case-insensitively), `select`
 * fields have options and only they do. FORM-003 on the first problem.
 */
export function normaliseFields(input: FormFieldInput[]): FormFieldDef[] {
  const seen = new Set<string>();
  const out: FormFieldDef[] = [];
  for (const f of input) {
    const key = f.name.toLowerCase();
    if (key === HONEYPOT_FIELD) fail('FORM-003', `The field name "${f.name}" is reserved.`);
    if (seen.has(key)) fail('FORM-003', `The field "${f.name}" is defined twice.`);
    seen.add(key);
    const standard = STANDARD_FIELDS[f.name];
    if (standard && f.type !== undefined && f.type !== standard.type) {
      fail('FORM-003', `The field "${f.name}" is always of type ${standard.type}.`);
    }
    const type = standard?.type ?? f.type ?? 'text';
    if (type === 'select' && !(f.options && f.options.length > 0)) {
      fail('FORM-003', `The select field "${f.name}" needs options.`);
    }
    if (type !== 'select' && f.options !== undefined) {
      fail('FORM-003', `Only select fields have options ("${f.name}" is ${type}).`);
    }
    out.push({
      name: f.name,
      label: f.label?.trim() || standard?.label || f.name,
      type,
      required: f.name === 'mobile' ? true : (f.required ?? false),
      ...(type === 'select' ? { options: [...new Set(f.options)] } : {}),
    });
  }
  if (!seen.has('mobile'))
    out.unshift({ name: 'mobile', label: 'Mobile number', type: 'tel', required: true });
  if (out.length > MAX_FIELDS) fail('FORM-003', `A form has at most ${MAX_FIELDS} fields.`);
  return out;
}

/**
 * Checks a form input's references (LIST-001 unknown list, LIST-002 smart list, FORM-002 unknown
 * template) and turns it into stored fields. A template fills whatever the input leaves out
 * (only when `withTemplate`, i.e. on creation).
 */
export async function formFields(
  db: Queryable,
  accountId: string,
  input: FormInput,
  opts: { withTemplate: boolean },
): Promise<FormFields> {
  const tpl =
    opts.withTemplate && input.templateId !== undefined ? findFormTemplate(input.templateId) : undefined;
  if (opts.withTemplate && input.templateId !== undefined && !tpl) fail('FORM-002');
  if (input.listId !== undefined && input.listId !== null) {
    const list = await requireList(db, accountId, input.listId);
    if (isSmartList(list)) fail('LIST-002', 'A form adds contacts to a static list; this list is smart.');
  }
  const fields = input.fields ?? tpl?.fields;
  const pick = <T>(given: T | undefined, fallback: T | undefined) => (given === undefined ? fallback : given);
  return {
    name: pick(input.name, tpl?.name),
    description: pick(input.description, tpl?.description),
    templateId: tpl?.id,
    fields: fields === undefined ? undefined : normaliseFields(fields),
    listId: input.listId === null ? null : input.listId?.toLowerCase(),
    defaultCountry: input.defaultCountry?.toUpperCase(),
    confirmationMessage: pick(input.confirmationMessage, tpl?.confirmationMessage),
    consentText: pick(input.consentText, tpl?.consentText),
    submitLabel: pick(input.submitLabel, tpl?.submitLabel),
    successMessage: pick(input.successMessage, tpl?.successMessage),
  };
}
