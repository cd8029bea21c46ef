import { type Db, withTx } from '../../db/client.ts';
import { stopDripExecutions, updateDrip as updateRow } from '../../db/queries/drips.ts';
import type { Actor } from '../actor.ts';
import { requireDrip } from './get-drip.ts';

/**
 * Deactivates a drip (endpoint 19): no new entries, and every active execution ends as `stopped`
 * so its pending steps are never sent, in one transaction. Deactivating an inactive drip changes
 * nothing. Errors: DRIP-001.
 */
export async function deactivateDrip(db: Db, accountId: string, dripId: string, by: Actor): Promise<void> {
  await withTx(db, async (tx) => {
    const drip = await requireDrip(tx, accountId, dripId, { forUpdate: true });
    if (drip.active) await updateRow(tx, accountId, drip.id, { active: false }, by);
    await stopDripExecutions(tx, accountId, drip.id);
  });
}
