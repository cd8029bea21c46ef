import { type Db, withTx } from '../../db/client.ts';
import { clearCrmIds, disconnectIntegration } from '../../db/queries/integrations.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';

/**
 * Disconnects a CRM: syncing and write-back stop and the credential is dropped. The CRM ids stay on
 * the contacts unless `clearIds`.
 */
export async function deleteIntegration(
  db: Db,
  accountId: string,
  id: string,
  opts: { clearIds?: boolean; by: Actor },
): Promise<void> {
  await withTx(db, async (tx) => {
    const row = (await disconnectIntegration(tx, accountId, id, opts.by)) ?? fail('INT-001');
    if (opts.clearIds) await clearCrmIds(tx, accountId, row.type);
  });
}
