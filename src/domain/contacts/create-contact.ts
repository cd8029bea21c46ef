import { type Db, withTx } from '../../db/client.ts';
import {
  findContactByMobile,
  insertContactIfAbsent,
  type MergeMode,
  updateContact,
} from '../../db/queries/contacts.ts';
import { accountHomeCountry } from '../../db/queries/home-country.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvent } from '../events/emit.ts';
import { rethrowAttributeLimit } from './attribute-limits.ts';
import { type ContactInput, toContactFields } from './contact-input.ts';
import { presentContacts } from './get-contact.ts';
import type { Contact } from './present-contact.ts';

/**
 * Creates one contact. When its mobile already exists in the account: without a merge strategy
 * CONT-003; with one, the given data is merged into the existing contact (contact-updated).
 */
export async function createContact(
  db: Db,
  accountId: string,
  input: ContactInput,
  mergeStrategy: Exclude<MergeMode, 'set'> | undefined,
  by: Actor,
): Promise<{ contact: Contact; created: boolean }> {
  return withTx(db, async (tx) => {
    const homeCountry = await accountHomeCountry(tx, accountId);
    const fields = toContactFields(input, { requireMobile: true, homeCountry });
    const inserted = await insertContactIfAbsent(tx, accountId, { id: newId(), fields, by });
    if (inserted) {
      const [contact] = await presentContacts(tx, accountId, [inserted]);
      await emitEvent(tx, accountId, 'contact-created', contact);
      return { contact, created: true };
    }
    if (!mergeStrategy) fail('CONT-003');
    const existing = await findContactByMobile(tx, accountId, fields.mobile!.number, { forUpdate: true });
    if (!existing) fail('CONT-003', 'The contact with this mobile number was removed meanwhile; try again.');
    const row = await updateContact(tx, accountId, existing.id, fields, mergeStrategy, by).catch(
      rethrowAttributeLimit,
    );
    const [contact] = await presentContacts(tx, accountId, [row!]);
    await emitEvent(tx, accountId, 'contact-updated', contact);
    return { contact, created: false };
  });
}
