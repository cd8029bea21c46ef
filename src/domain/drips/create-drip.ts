import { type Db, withTx } from '../../db/client.ts';
import { insertDrip, replaceSteps } from '../../db/queries/drips.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type DripInput, dripFields } from './drip-input.ts';
import { saveDripWorkflow } from './drip-workflow.ts';
import { getDrip } from './get-drip.ts';
import type { Drip } from './present-drip.ts';

/**
 * Saves a new drip campaign with its messages, and its workflow (see saveDripWorkflow). It starts
 * entering contacts only when created with `activate: true` (otherwise it is a draft until
 * activated by an update). Errors: DRIP-004,
 * LIST-001, GRP-001.
 */
export async function createDrip(
  db: Db,
  accountId: string,
  input: DripInput & { name: string; messages: NonNullable<DripInput['messages']> },
  by: Actor,
  externalsUrl: string,
): Promise<Drip> {
  const { fields, steps } = await dripFields(db, accountId, input, externalsUrl);
  const id = newId();
  await withTx(db, async (tx) => {
    await insertDrip(tx, accountId, {
      ...fields,
      id,
      name: input.name,
      triggerType: fields.triggerType ?? 'list',
      active: input.activate ?? false,
      by,
    });
    await replaceSteps(tx, accountId, id, steps ?? []);
    await saveDripWorkflow(tx, accountId, id, by);
  });
  return getDrip(db, accountId, id);
}
