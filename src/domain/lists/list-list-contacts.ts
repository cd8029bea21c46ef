import type { Queryable } from '../../db/client.ts';
import { type ContactFilter, listContacts } from '../../db/queries/contacts.ts';
import { listMemberCondition } from '../../db/queries/lists.ts';
import { presentContacts } from '../contacts/get-contact.ts';
import type { Contact } from '../contacts/present-contact.ts';
import type { Page } from '../page.ts';
import { requireList } from './get-list.ts';

/** A page of a list's contacts (stored members, or a smart list's filter evaluated now), newest first. */
export async function listListContacts(
  db: Queryable,
  accountId: string,
  listId: string,
  filter: ContactFilter,
  page: { limit: number; offset: number },
): Promise<Page<Contact>> {
  const list = await requireList(db, accountId, listId);
  const { rows, total } = await listContacts(
    db,
    accountId,
    { ...filter, extraWhere: (params) => listMemberCondition(list, params) },
    page,
  );
  return { items: await presentContacts(db, accountId, rows), totalCount: total, ...page };
}
