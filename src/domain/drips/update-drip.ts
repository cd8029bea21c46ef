import { type Db, withTx } from '../../db/client.ts';
import { replaceSteps, stepsOf, updateDrip as updateRow } from '../../db/queries/drips.ts';
import { stopRuns } from '../../db/queries/workflows-runs.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { type DripInput, dripFields } from './drip-input.ts';
import { saveDripWorkflow } from './drip-workflow.ts';
import { getDrip, requireDrip } from './get-drip.ts';
import type { Drip } from './present-drip.ts';

/**
 * Changes the given fields of a drip (endpoint 15). `trigger` is merged part by part; `messages`,
 * when given, replaces the steps (a message carrying the `id` of a current step keeps that step and
 * its stats; running executions continue at their next position: saveDripWorkflow saves a version
 * and moves them onto it). `activate: true` resumes entries
 * (not stopped executions); `activate: false` deactivates as endpoint 19 does. `stats` is
 * read-only and ignored. Errors: DRIP-001, DRIP-003 (activating a migrated drip), DRIP-004,
 * LIST-001, GRP-001.
 */
export async function updateDrip(
  db: Db,
  accountId: string,
  dripId: string,
  input: DripInput,
  by: Actor,
  externalsUrl: string,
): Promise<Drip> {
  await withTx(db, async (tx) => {
    const drip = await requireDrip(tx, accountId, dripId, { forUpdate: true });
    if (input.activate === true && drip.workflow_id)
      fail('DRIP-003', 'A migrated drip cannot be activated again.');
    const steps = await stepsOf(tx, accountId, [drip.id]);
    const { fields, steps: newSteps } = await dripFields(tx, accountId, input, externalsUrl, { drip, steps });
    await updateRow(tx, accountId, drip.id, fields, by);
    if (newSteps) await replaceSteps(tx, accountId, drip.id, newSteps);
    if (input.activate === false && !drip.workflow_id)
      await stopRuns(tx, accountId, { workflowId: drip.id }, null);
    await saveDripWorkflow(tx, accountId, drip.id, by);
  });
  return getDrip(db, accountId, dripId);
}
