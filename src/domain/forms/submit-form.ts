import { type Db, withTx } from '../../db/client.ts';
import { type FormRow, findActiveFormById } from '../../db/queries/forms.ts';
import { bumpFormStat, insertConversion } from '../../db/queries/forms-activity.ts';
import { addListMembers, findList, isSmartList } from '../../db/queries/lists.ts';
import { AppError } from '../../errors.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import { isId, newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { consentRecord } from '../contacts/consent-record.ts';
import { HONEYPOT_FIELD } from './form-input.ts';
import { queueConfirmation } from './queue-confirmation.ts';
import { saveFormContact } from './save-form-contact.ts';
import { checkSubmission, PAGE_URL_FIELD, pageUrlOf, submittedText } from './submission-input.ts';

/** A submission as the public listener receives it. */
export interface FormSubmission {
  values: Record<string, unknown>;
  ip: string | null;
  /** The Referer header: the page address when the hidden field does not carry one. */
  referer?: string;
  /** Confirmation texts this form may send an hour (FORM_CONFIRMATIONS_PER_HOUR); unbounded when absent. */
  confirmationsPerHour?: number;
  /** The service's price table (PRICE_TABLE): the confirmation text is priced by it. */
  prices: PriceTable;
}

/** What became of a submission. */
export type SubmitOutcome =
  | { kind: 'not-found' }
  | { kind: 'invalid'; form: FormRow; errors: Record<string, string> }
  /** The honeypot was filled: answered as accepted, recorded nowhere. */
  | { kind: 'ignored'; form: FormRow }
  | {
      kind: 'accepted';
      form: FormRow;
      conversionId: string;
      contactId: string;
      contactCreated: boolean;
      confirmationMessageId: string | null;
      /** Why no confirmation text was queued, if one was due and none was (FORM-005: the hourly cap). */
      confirmationError: { code: string; description: string } | null;
    };

/**
 * Accepts a submission of an active form, in one transaction: validates it, creates or updates the
 * contact (contact-created / contact-updated), adds it to the form's list (static lists only; a
 * double opt-in list holds it unconfirmed), queues the confirmation text (never to an opted-out or
 * blocked contact, nor past the form's hourly cap: the lead is kept, FORM-005 is recorded), records the conversion (ip, page address, submitted fields) and counts it.
 */
export async function submitForm(db: Db, formId: string, input: FormSubmission): Promise<SubmitOutcome> {
  if (!isId(formId)) return { kind: 'not-found' };
  // Own keys only: a field named like an Object.prototype member must not read the inherited one.
  const values: Record<string, unknown> = Object.assign(Object.create(null), input.values);
  let found: FormRow | undefined;
  try {
    return await accept(db, formId, input, values, (f) => {
      found = f;
    });
  } catch (err) {
    // Answers too long for the contact's attributes (attribute-limits.ts): the submitter's to shorten.
    if (!(err instanceof AppError && err.code === 'CONT-005' && found)) throw err;
    const field =
      found.fields.find((f) => !STANDARD.has(f.name) && submittedText(values[f.name]))?.name ?? 'mobile';
    return {
      kind: 'invalid',
      form: found,
      errors: { [field]: 'Your answers are too long to keep: please shorten them.' },
    };
  }
}

const STANDARD = new Set(['mobile', 'firstName', 'lastName', 'email']);

export { consentRecord };

async function accept(
  db: Db,
  formId: string,
  input: FormSubmission,
  values: Record<string, unknown>,
  seen: (form: FormRow) => void,
): Promise<SubmitOutcome> {
  return withTx(db, async (tx) => {
    const form = await findActiveFormById(tx, formId, { lock: true });
    if (!form) return { kind: 'not-found' as const };
    seen(form);
    if (submittedText(values[HONEYPOT_FIELD]) !== '') return { kind: 'ignored' as const, form };
    const check = checkSubmission(form, values);
    if (!check.ok) return { kind: 'invalid' as const, form, errors: check.errors };

    const accountId = form.account_id;
    const by: Actor = { id: form.id, name: form.name, source: 'form' };
    // Consent given on the form is kept with the contact (custom fields, shown on its page): the
    // statement as it was shown, where it was given and when.
    if (check.value.consent && form.consent_text?.trim())
      Object.assign(
        check.value.attributes,
        consentRecord(form.consent_text.trim(), `Lead form “${form.name}”`),
      );
    const { contact, created } = await saveFormContact(tx, accountId, check.value, by);
    if (form.list_id) {
      const list = await findList(tx, accountId, form.list_id);
      if (list && !isSmartList(list)) {
        await addListMembers(tx, accountId, list.id, [contact.id], !list.double_opt_in?.enabled);
      }
    }
    const confirmation = await queueConfirmation(
      tx,
      form,
      contact,
      by,
      input.prices,
      input.confirmationsPerHour,
    );
    const conversionId = newId();
    await insertConversion(tx, accountId, {
      id: conversionId,
      formId: form.id,
      contactId: contact.id,
      contact: {
        firstName: contact.first_name,
        lastName: contact.last_name,
        mobile: contact.mobile_number,
        country: contact.mobile_country,
        email: contact.email,
      },
      ip: input.ip,
      pageUrl: pageUrlOf(values[PAGE_URL_FIELD]) ?? pageUrlOf(input.referer) ?? null,
      submittedFields: check.value.submittedFields,
      confirmationMessageId: confirmation.messageId,
      confirmationError: confirmation.error,
    });
    await bumpFormStat(tx, accountId, form.id, 'conversions');
    return {
      kind: 'accepted' as const,
      form,
      conversionId,
      contactId: contact.id,
      contactCreated: created,
      confirmationMessageId: confirmation.messageId,
      confirmationError: confirmation.error,
    };
  });
}
