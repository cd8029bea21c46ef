import { type Db, type Queryable, withTx } from '../../db/client.ts';
import { deleteContacts } from '../../db/queries/contacts.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvents } from '../events/emit.ts';
import { presentContact } from './present-contact.ts';

/** Deletes a contact (its list memberships and conversations go with it). Emits contact-removed. */
export async function removeContact(db: Db, accountId: string, contactId: string, by: Actor): Promise<void> {
  if (!isId(contactId)) fail('CONT-002');
  await withTx(db, async (tx) => {
    if (!(await removeContactIn(tx, accountId, contactId, by))) fail('CONT-002');
  });
}

/**
 * The one path of a contact removal inside the caller's transaction (DELETE …/contacts/{id}, bulk
 * operations): deletes it and emits contact-removed; false when it was gone already.
 */
export async function removeContactIn(
  tx: Queryable,
  accountId: string,
  contactId: string,
  by: Actor,
): Promise<boolean> {
  return (await removeContactsIn(tx, accountId, [contactId], by)) === 1;
}

/** removeContactIn for many contacts in one statement (bulk operations); answers how many were deleted. */
export async function removeContactsIn(
  tx: Queryable,
  accountId: string,
  contactIds: string[],
  by: Actor,
): Promise<number> {
  const rows = await deleteContacts(tx, accountId, contactIds);
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const at = new Date().toISOString();
  await emitEvents(
    tx,
    accountId,
    'contact-removed',
    rows.map((row) => ({ ...presentContact(row), removed: { at, by } })),
  );
  return rows.length;
}
