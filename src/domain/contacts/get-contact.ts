import type { Queryable } from '../../db/client.ts';
import { type ContactRow, findContactWithMemberships, listMemberships } from '../../db/queries/contacts.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Contact, presentContact } from './present-contact.ts';

/** Contacts in the Contact shape, with their list memberships (one query for all of them). */
export async function presentContacts(
  db: Queryable,
  accountId: string,
  rows: ContactRow[],
): Promise<Contact[]> {
  const memberships = await listMemberships(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) =>
    presentContact(
      r,
      memberships.filter((m) => m.contact_id === r.id),
    ),
  );
}

/** One contact of the account in the Contact shape; CONT-002 when there is none. */
export async function getContact(db: Queryable, accountId: string, contactId: string): Promise<Contact> {
  const row = isId(contactId) ? await findContactWithMemberships(db, accountId, contactId) : undefined;
  if (!row) fail('CONT-002');
  return presentContact(row, row.memberships);
}
