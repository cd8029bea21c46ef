import type { Queryable } from '../../db/client.ts';
import { listExists } from '../../db/queries/integration-sync.ts';
import { fail } from '../../errors.ts';

/** Every Sparrow list a connection syncs into exists in the account (else 404 LIST-001). */
export async function checkListMappings(
  db: Queryable,
  accountId: string,
  lists: { crmListId: string; listId: string }[] | undefined,
): Promise<void> {
  for (const l of lists ?? [])
    if (!(await listExists(db, accountId, l.listId))) fail('LIST-001', `List ${l.listId} not found.`);
}
