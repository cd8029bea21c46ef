import { type Db, withTx } from '../../db/client.ts';
import type { DripRow } from '../../db/queries/drips.ts';
import { markDripMigrated, type StepRow, stepsOf, stopDripExecutions } from '../../db/queries/drips.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { createWorkflow, type Workflow } from '../workflows/create-workflow.ts';
import type { DefinitionInput, EdgeInput, NodeInput } from '../workflows/definition.ts';
import { requireDrip } from './get-drip.ts';

const isZero = (d: { days: number; hours: number; minutes: number }) => d.days + d.hours + d.minutes === 0;

/**
 * The workflow definition equivalent to a drip: its trigger node, a wait for the trigger delay (when
 * it has one), then for each message a wait (when it has a delay) and a send-message from the drip's group, then an end node; each node
 * leads to the next by one edge. Node ids are readable (`trigger`, `wait-0`, `wait-1`, `send-1`, …, `end`).
 */
export function dripDefinition(drip: DripRow, steps: StepRow[]): DefinitionInput {
  const nodes: NodeInput[] = [];
  if (drip.trigger_type === 'list') {
    nodes.push({ id: 'trigger', type: { id: 'trigger.list-joined' }, config: { listId: drip.list_id } });
  } else if (drip.trigger_type === 'keyword') {
    nodes.push({ id: 'trigger', type: { id: 'trigger.keyword' }, config: { keyword: drip.keyword } });
  } else {
    nodes.push({ id: 'trigger', type: { id: 'trigger.contact-created' }, config: {} });
  }
  if (!isZero(drip.trigger_delay))
    nodes.push({ id: 'wait-0', type: { id: 'action.wait' }, config: { delay: drip.trigger_delay } });
  steps.forEach((s, i) => {
    if (!isZero(s.delay))
      nodes.push({ id: `wait-${i + 1}`, type: { id: 'action.wait' }, config: { delay: s.delay } });
    const config: Record<string, unknown> = { message: s.message };
    if (drip.group_id) config.id = drip.group_id;
    nodes.push({ id: `send-${i + 1}`, type: { id: 'action.send-message' }, config });
  });
  nodes.push({ id: 'end', type: { id: 'action.end' }, config: {} });
  const edges: EdgeInput[] = nodes.slice(1).map((n, i) => ({
    id: `edge-${i + 1}`,
    source: nodes[i].id,
    target: n.id,
    value: '',
  }));
  return { nodes, edges };
}

/**
 * Endpoint 18: builds the workflow equivalent to the drip (one version, active when the drip was),
 * records it on the drip and deactivates the drip (its running executions end as `stopped`; the
 * workflow takes new entries from now on). The drip stays locked meanwhile, so a concurrent migrate
 * waits and then gets 409. Errors: DRIP-001, DRIP-003 already migrated, and the workflow's own
 * validation errors (WF-0xx) should the drip not fit a workflow. Not carried over: message media
 * and maxDuration (workflow nodes have no such settings).
 */
export async function migrateDrip(db: Db, accountId: string, dripId: string, by: Actor): Promise<Workflow> {
  return withTx(db, async (tx) => {
    const drip = await requireDrip(tx, accountId, dripId, { forUpdate: true });
    if (drip.workflow_id)
      fail('DRIP-003', `The drip campaign was already migrated to workflow ${drip.workflow_id}.`);
    const steps = await stepsOf(tx, accountId, [drip.id]);
    // In this transaction: the workflow exists exactly when the drip is marked migrated.
    const workflow = await createWorkflow(
      tx,
      accountId,
      {
        name: drip.name,
        versions: [
          {
            name: `Migrated from drip ${drip.name}`,
            definition: dripDefinition(drip, steps),
            activate: drip.active,
          },
        ],
      },
      by,
    );
    await markDripMigrated(tx, accountId, drip.id, workflow.id, by);
    await stopDripExecutions(tx, accountId, drip.id);
    return workflow;
  });
}
