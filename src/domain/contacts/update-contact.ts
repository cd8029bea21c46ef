import { type Db, type Queryable, withTx } from '../../db/client.ts';
import {
  type ContactFields,
  findContact,
  type MergeMode,
  updateContacts,
} from '../../db/queries/contacts.ts';
import { accountHomeCountry } from '../../db/queries/home-country.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvents } from '../events/emit.ts';
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
  return withTx(db, async (tx) => {
    const homeCountry = input.mobile ? await accountHomeCountry(tx, accountId) : undefined;
    const fields = toContactFields(input, { requireMobile: false, homeCountry });
    if (!(await findContact(tx, accountId, contactId))) fail('CONT-002');
    return (await applyContactUpdate(tx, accountId, contactId, fields, 'set', by)) ?? fail('CONT-002');
  });
}

/**
 * The one path of a contact edit inside the caller's transaction (PUT …/contacts/{id}, bulk
 * operations): updates the row, emits contact-updated with the Contact shape, answers it;
 * undefined when the contact is gone.
 */
export async function applyContactUpdate(
  tx: Queryable,
  accountId: string,
  contactId: string,
  fields: ContactFields,
  mode: MergeMode,
  by: Actor,
): Promise<Contact | undefined> {
  return (await applyContactUpdates(tx, accountId, [{ id: contactId, fields }], mode, by))[0];
}

/**
 * applyContactUpdate for many contacts at once (bulk operations): one update statement, one
 * presentation, one contact-updated event per contact changed, in id order. Contacts gone are skipped.
 */
export async function applyContactUpdates(
  tx: Queryable,
  accountId: string,
  changes: { id: string; fields: ContactFields }[],
  mode: MergeMode,
  by: Actor,
): Promise<Contact[]> {
  const rows = await updateContacts(tx, accountId, changes, mode, by).catch((err: { code?: string }) => {
    if (err.code === UNIQUE_VIOLATION) fail('CONT-003');
    return rethrowAttributeLimit(err);
  });
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const contacts = await presentContacts(tx, accountId, rows);
  await emitEvents(tx, accountId, 'contact-updated', contacts);
  return contacts;
}
