import type { Queryable } from '../../db/client.ts';
import { findContactImport, listContactImports } from '../../db/queries/contact-imports.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Page } from '../page.ts';
import { type ContactImport, presentContactImport } from './present-contact-import.ts';

/** One import of the account: 404 CONT-006 for an unknown, malformed or another account's id. */
export async function getContactImport(
  db: Queryable,
  accountId: string,
  importId: string,
): Promise<ContactImport> {
  const row = isId(importId) ? await findContactImport(db, accountId, importId) : undefined;
  if (!row) fail('CONT-006');
  return presentContactImport(row);
}

/** A page of the account's imports, newest first. */
export async function listContactImportsPage(
  db: Queryable,
  accountId: string,
  q: { offset: number; limit: number; status?: string },
): Promise<Page<ContactImport>> {
  const { rows, total } = await listContactImports(db, accountId, { status: q.status }, q.offset, q.limit);
  return { items: rows.map(presentContactImport), totalCount: total, offset: q.offset, limit: q.limit };
}
