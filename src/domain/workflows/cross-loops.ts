import type { Queryable } from '../../db/client.ts';
import type { StoredDefinition } from '../../db/queries/workflows.ts';
import { activeVersions } from '../../db/queries/workflows-runs.ts';
import { fail } from '../../errors.ts';
import { WAITING_TYPES } from './node-types.ts';

/** The list whose joins start the definition (its `trigger.list-joined`), if any. */
function triggerList(def: StoredDefinition): string | undefined {
  const t = def.nodes.find((n) => n.typeId === 'trigger.list-joined');
  return typeof t?.config.listId === 'string' ? t.config.listId : undefined;
}

/**
 * The lists a run of the definition adds its contact to before any wait (action.wait,
 * condition.replied): `action.add-to-list` nodes reachable from the trigger on a path that passes
 * no waiting node. Those joins start other workflows at once.
 */
export function immediateJoins(def: StoredDefinition): Set<string> {
  const trigger = def.nodes.find((n) => n.typeId.startsWith('trigger.'));
  const joins = new Set<string>();
  if (!trigger) return joins;
  const byId = new Map(def.nodes.map((n) => [n.id, n]));
  const seen = new Set([trigger.id]);
  const stack = [trigger.id];
  while (stack.length) {
    const id = stack.pop() as string;
    for (const e of def.edges) {
      if (e.source !== id || seen.has(e.target)) continue;
      seen.add(e.target);
      const n = byId.get(e.target);
      if (!n || WAITING_TYPES.has(n.typeId)) continue;
      if (n.typeId === 'action.add-to-list' && typeof n.config.listId === 'string')
        joins.add(n.config.listId);
      stack.push(n.id);
    }
  }
  return joins;
}

/**
 * WF-020: the workflow's active version would start a loop of workflows without a wait, as seen
 * from the triggers: its run adds the contact (before any wait) to a list whose joins start a
 * workflow whose run adds it (before any wait) to a list … that starts this one again (itself
 * included: re-adding the contact to its own trigger list). Only loops through this workflow are
 * refused (a loop elsewhere is refused when one of its workflows is saved). Checked after the
 * request's versions are saved, inside its transaction: the refusal rolls all of it back.
 */
export async function checkCrossWorkflowLoops(tx: Queryable, accountId: string, workflowId: string) {
  const active = await activeVersions(tx, accountId);
  if (!active.some((v) => v.workflow_id === workflowId)) return;
  const startedBy = new Map<string, string[]>();
  for (const v of active) {
    const list = triggerList(v.definition);
    if (list) startedBy.set(list, [...(startedBy.get(list) ?? []), v.workflow_id]);
  }
  const next = new Map(
    active.map((v) => [
      v.workflow_id,
      [...immediateJoins(v.definition)].flatMap((l) => startedBy.get(l) ?? []),
    ]),
  );
  // Breadth-first from this workflow, keeping the way back, until it comes round to itself.
  const from = new Map<string, string>();
  const queue = [workflowId];
  while (queue.length) {
    const w = queue.shift() as string;
    for (const t of next.get(w) ?? []) {
      if (t === workflowId) {
        const path = [w];
        for (let p = from.get(w); p !== undefined; p = from.get(p)) path.unshift(p);
        const names = new Map(active.map((v) => [v.workflow_id, v.workflow_name]));
        const shown = [...path, workflowId].map((id) => `"${names.get(id) || id}" (${id})`).join(' → ');
        fail(
          'WF-020',
          `Active workflows would start each other in a loop with no wait: ${shown}. Each adds the contact to the list that starts the next one; add a wait or use another list.`,
        );
      }
      if (!from.has(t) && t !== workflowId) {
        from.set(t, w);
        queue.push(t);
      }
    }
  }
}
