import { type Db, withTx } from '../../db/client.ts';
import { markDripMigrated } from '../../db/queries/drips.ts';
import { setDripWorkflow } from '../../db/queries/workflows.ts';
import { stopRuns } from '../../db/queries/workflows-runs.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { getWorkflow } from '../workflows/get-workflow.ts';
import type { Workflow } from '../workflows/present-workflow.ts';
import { dripDefinition, saveDripWorkflow } from './drip-workflow.ts';
import { requireDrip } from './get-drip.ts';

export { dripDefinition };

/**
 * Endpoint 18: hands the drip's own workflow over (the one it runs on, with the drip's id: its
 * versions, the active one active as the drip was), records it on the drip and deactivates the
 * drip. The drip's running executions end as `stopped`; the workflow takes new entries from now on
 * as any workflow does. The drip stays locked meanwhile, so a concurrent migrate waits and then
 * gets 409. Errors: DRIP-001, DRIP-003 already migrated.
 */
export async function migrateDrip(db: Db, accountId: string, dripId: string, by: Actor): Promise<Workflow> {
  return withTx(db, async (tx) => {
    const drip = await requireDrip(tx, accountId, dripId, { forUpdate: true });
    if (drip.workflow_id)
      fail('DRIP-003', `The drip campaign was already migrated to workflow ${drip.workflow_id}.`);
    await saveDripWorkflow(tx, accountId, drip.id, by);
    await stopRuns(tx, accountId, { workflowId: drip.id }, null);
    await markDripMigrated(tx, accountId, drip.id, drip.id, by);
    await setDripWorkflow(tx, accountId, drip.id, { name: drip.name, drip: false, by });
    return getWorkflow(tx, accountId, drip.id);
  });
}
