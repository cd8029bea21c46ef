import type { Queryable } from '../../db/client.ts';
import { type ContactFilter, listContacts as queryContacts } from '../../db/queries/contacts.ts';
import type { Page } from '../page.ts';
import { presentContacts } from './get-contact.ts';
import type { Contact } from './present-contact.ts';

/** A page of the account's contacts, newest first, filtered by partial matches. */
export async function listContacts(
  db: Queryable,
  accountId: string,
  filter: ContactFilter,
  page: { limit: number; offset: number },
): Promise<Page<Contact>> {
  const { rows, total } = await queryContacts(db, accountId, filter, page);
  return { items: await presentContacts(db, accountId, rows), totalCount: total, ...page };
}
