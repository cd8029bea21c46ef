import type { Queryable } from '../../db/client.ts';
import {
  type ContactRow,
  findContactByMobile,
  insertContactIfAbsent,
  updateContact,
} from '../../db/queries/contacts.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { rethrowAttributeLimit } from '../contacts/attribute-limits.ts';
import { toContactFields } from '../contacts/contact-input.ts';
import { presentContacts } from '../contacts/get-contact.ts';
import { emitEvent } from '../events/emit.ts';
import type { ValidSubmission } from './submission-input.ts';

/**
 * Creates the submitter's contact, or updates the one with this mobile number (given fields win,
 * attributes merge key by key), in the caller's transaction, emitting contact-created or
 * contact-updated as the contacts area does (createContact with mergeStrategy `append`). Consent
 * sets the contact's `optIn` when it has none, unless the contact opted out (only a START undoes that).
 */
export async function saveFormContact(
  tx: Queryable,
  accountId: string,
  s: ValidSubmission,
  by: Actor,
): Promise<{ contact: ContactRow; created: boolean }> {
  const existing = await findContactByMobile(tx, accountId, s.mobile.number, { forUpdate: true });
  const fields = toContactFields(
    {
      mobile: { number: s.mobile.number, country: s.mobile.country },
      firstName: s.firstName,
      lastName: s.lastName,
      email: s.email,
      attributes: Object.keys(s.attributes).length > 0 ? s.attributes : undefined,
      optIn: s.consent && !existing?.opt_in_at && !existing?.opted_out_at ? true : undefined,
    },
    { requireMobile: true },
  );
  if (!existing) {
    const inserted = await insertContactIfAbsent(tx, accountId, { id: newId(), fields, by });
    if (inserted) {
      const [contact] = await presentContacts(tx, accountId, [inserted]);
      await emitEvent(tx, accountId, 'contact-created', contact);
      return { contact: inserted, created: true };
    }
  }
  // Known (or inserted by a concurrent submission since our read, whose commit ON CONFLICT awaited).
  const current =
    existing ?? (await findContactByMobile(tx, accountId, s.mobile.number, { forUpdate: true }));
  if (!current) throw new Error(`contact for ${s.mobile.number} vanished during a form submission`);
  const row =
    (await updateContact(tx, accountId, current.id, fields, 'append', by).catch(rethrowAttributeLimit)) ??
    current;
  const [contact] = await presentContacts(tx, accountId, [row]);
  await emitEvent(tx, accountId, 'contact-updated', contact);
  return { contact: row, created: false };
}
