import type { Db } from '../../db/client.ts';
import { getSmppCredential, listSmppCredentials } from '../../db/queries/smpp.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { presentSmppCredential } from './present.ts';

/** A page of the account's SMPP credentials, oldest first. */
export async function listCredentials(db: Db, accountId: string, offset: number, limit: number) {
  const { rows, total } = await listSmppCredentials(db, accountId, offset, limit);
  return { items: rows.map((r) => presentSmppCredential(r)), totalCount: total, offset, limit };
}

/** One SMPP credential of the account (SMPP-001 when there is none by that id). */
export async function getCredential(db: Db, accountId: string, id: string) {
  const row = isId(id) ? await getSmppCredential(db, accountId, id) : undefined;
  if (!row) fail('SMPP-001');
  return presentSmppCredential(row);
}
