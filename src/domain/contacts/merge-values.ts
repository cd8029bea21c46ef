import type { ContactRow } from '../../db/queries/contacts.ts';
import { type RenderContact, renderTemplate } from '../../messaging/render.ts';

/** The columns of a contact that merge fields read. */
export type MergeContact = Pick<
  ContactRow,
  'id' | 'first_name' | 'last_name' | 'email' | 'mobile_number' | 'mobile_country' | 'attributes'
>;

/**
 * The values a contact's merge fields render with (`{{{firstName}}}`, `{{{mobile}}}`, a custom
 * attribute by name): the one mapping from a contacts row, for every text the service writes to a
 * contact by itself (workflow steps, autoresponders, form confirmations). Bulk sends read the same
 * columns in SQL (renderSql in db/queries/render-sql.ts).
 */
export function mergeValues(contact: MergeContact): RenderContact {
  return {
    id: contact.id,
    firstName: contact.first_name,
    lastName: contact.last_name,
    email: contact.email,
    mobile: contact.mobile_number,
    country: contact.mobile_country,
    attributes: contact.attributes,
  };
}

/** A template rendered for a contact. */
export function renderForContact(template: string, contact: MergeContact): string {
  return renderTemplate(template, mergeValues(contact));
}
