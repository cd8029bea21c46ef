import { type Db, withTx } from '../../db/client.ts';
import { findContact, updateContact as updateContactRow } from '../../db/queries/contacts.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvent } from '../events/emit.ts';
import { rethrowAttributeLimit } from './attribute-limits.ts';
import { type ContactInput, toContactFields } from './contact-input.ts';
import { presentContacts } from './get-contact.ts';
import type { Contact } from './present-contact.ts';

const UNIQUE_VIOLATION = '23505';

/**
 * Updates the given fields of a contact (attributes merge key by key, a null value removing the key;
 * tags, when given, replace the contact's tags). Emits contact-updated.
 */
export async function updateContact(
  db: Db,
  accountId: string,
  contactId: string,
  input: ContactInput,
  by: Actor,
): Promise<Contact> {
  if (!isId(contactId)) fail('CONT-002');
  const fields = toContactFields(input, { requireMobile: false });
  return withTx(db, async (tx) => {
    if (!(await findContact(tx, accountId, contactId))) fail('CONT-002');
    const row = await updateContactRow(tx, accountId, contactId, fields, 'set', by).catch(
      (err: { code?: string }) => {
        if (err.code === UNIQUE_VIOLATION) fail('CONT-003');
        rethrowAttributeLimit(err);
      },
    );
    if (!row) fail('CONT-002');
    const [contact] = await presentContacts(tx, accountId, [row]);
    await emitEvent(tx, accountId, 'contact-updated', contact);
    return contact;
  });
}
