import { type Db, withTx } from '../../db/client.ts';
import { updateDrip as updateRow } from '../../db/queries/drips.ts';
import { stopRuns } from '../../db/queries/workflows-runs.ts';
import type { Actor } from '../actor.ts';
import { saveDripWorkflow } from './drip-workflow.ts';
import { requireDrip } from './get-drip.ts';

/**
 * Deactivates a drip (endpoint 19): its workflow version stops being active (no new entries), and
 * every running execution ends as `stopped` so its pending steps are never sent, in one
 * transaction. Deactivating an inactive drip changes nothing. Errors: DRIP-001.
 */
export async function deactivateDrip(db: Db, accountId: string, dripId: string, by: Actor): Promise<void> {
  await withTx(db, async (tx) => {
    const drip = await requireDrip(tx, accountId, dripId, { forUpdate: true });
    if (drip.active) await updateRow(tx, accountId, drip.id, { active: false }, by);
    // A migrated drip's workflow is no longer the drip's to stop.
    if (drip.workflow_id) return;
    await stopRuns(tx, accountId, { workflowId: drip.id }, null);
    await saveDripWorkflow(tx, accountId, drip.id, by);
  });
}
