import type { Static } from '@sinclair/typebox';
import type { FormRow } from '../../db/queries/forms.ts';
import type { ConversionRow } from '../../db/queries/forms-activity.ts';
import type {
  FormConversion as FormConversionSchema,
  FormTemplate as FormTemplateSchema,
  LeadForm as LeadFormSchema,
} from '../../schemas/forms.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { SYSTEM, stamp } from '../actor.ts';
import type { FormTemplate } from './form-templates.ts';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** The hosted page of a form on the public listener. */
export function hostedFormUrl(externalsUrl: string, formId: string): string {
  return `${externalsUrl}/f/${formId}`;
}

/**
 * The Lead form shape of the API (plus its definition and hosted `url`). An unset field is left
 * out, never null: the published description marks nothing nullable.
 */
export function presentForm(f: FormRow, externalsUrl: string) {
  return omitNullsAs<Static<typeof LeadFormSchema>>({
    id: f.id,
    name: f.name,
    description: f.description,
    templateId: f.template_id,
    fields: f.fields,
    list: f.list_id ? { id: f.list_id, name: f.list_name ?? '' } : null,
    defaultCountry: f.default_country,
    confirmationMessage: f.confirmation_message,
    consentText: f.consent_text,
    submitLabel: f.submit_label,
    successMessage: f.success_message,
    active: iso(f.active_at),
    impressions: f.impressions,
    conversions: f.conversions,
    url: hostedFormUrl(externalsUrl, f.id),
    created: stamp(f.created_at, f.created_by),
    updated: stamp(f.updated_at, f.updated_by),
  });
}

/** A form as the API shows it. */
export type LeadForm = ReturnType<typeof presentForm>;

/** A catalog template in the Lead form shape (never active, no counts, no list, no hosted page). */
export function presentFormTemplate(t: FormTemplate) {
  return omitNullsAs<Static<typeof FormTemplateSchema>>({
    id: t.id,
    name: t.name,
    category: t.category,
    description: t.description,
    fields: t.fields,
    defaultCountry: 'US',
    confirmationMessage: t.confirmationMessage,
    consentText: t.consentText,
    submitLabel: t.submitLabel,
    successMessage: t.successMessage,
    impressions: 0,
    conversions: 0,
    created: stamp(t.added, SYSTEM),
    updated: stamp(t.added, SYSTEM),
  });
}

/** The Form conversion shape. */
export function presentConversion(c: ConversionRow) {
  return omitNullsAs<Static<typeof FormConversionSchema>>({
    id: c.id,
    ip: c.ip,
    pageUrl: c.page_url,
    submitted: new Date(c.submitted_at).toISOString(),
    contact: omitNulls({
      id: c.contact_id,
      firstName: c.contact.firstName ?? null,
      lastName: c.contact.lastName ?? null,
      mobile: c.contact.mobile ?? null,
      country: c.contact.country ?? null,
      email: c.contact.email ?? null,
    }),
    submittedFields: c.submitted_fields,
    confirmation: omitNulls({
      messageId: c.confirmation_message_id,
      error: c.confirmation_error,
    }),
  });
}

/** A conversion as the API shows it. */
export type FormConversion = ReturnType<typeof presentConversion>;
