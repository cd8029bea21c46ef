import type { Queryable } from '../../db/client.ts';
import { pushCounts } from '../../db/queries/integration-pushes.ts';
import { findIntegration, listIntegrations as listRows } from '../../db/queries/integrations.ts';
import { fail } from '../../errors.ts';
import { presentIntegration } from './present-integration.ts';

/** One connection of the account, presented (404 INT-001: unknown, another account's, or disconnected). */
export async function getIntegration(db: Queryable, accountId: string, id: string) {
  const row = (await findIntegration(db, accountId, id)) ?? fail('INT-001');
  return presentIntegration(row, await pushCounts(db, row.id));
}

/** A page of the account's live connections, oldest first. */
export async function listIntegrations(db: Queryable, accountId: string, offset: number, limit: number) {
  const { items, totalCount } = await listRows(db, accountId, offset, limit);
  const presented = [];
  for (const row of items) presented.push(presentIntegration(row, await pushCounts(db, row.id)));
  return { items: presented, totalCount, offset, limit };
}
