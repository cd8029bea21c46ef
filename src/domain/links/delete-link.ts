import type { Queryable } from '../../db/client.ts';
import { deleteLink as deleteRow } from '../../db/queries/links.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';

/**
 * Deletes a link with its sources and click counts: its short URLs answer 404 from then on (also
 * in texts already sent). LINK-001 when the account has no such link.
 */
export async function deleteLink(db: Queryable, accountId: string, linkId: string): Promise<void> {
  if (!isId(linkId) || !(await deleteRow(db, accountId, linkId))) fail('LINK-001');
}
