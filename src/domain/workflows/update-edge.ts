import { type Db, withTx } from '../../db/client.ts';
import { touchWorkflow, updateVersion, versionsOf } from '../../db/queries/workflows.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { checkCrossWorkflowLoops } from './cross-loops.ts';
import { normalizeDefinition } from './definition.ts';
import { requireWorkflow } from './get-workflow.ts';
import { type Edge, presentEdge } from './present-workflow.ts';

/** The `data` of PUT …/workflows/{id}/edges/{edgeId}. */
export interface EdgeUpdate {
  id?: string;
  source?: string;
  target?: string;
  value?: string;
}

/**
 * Edits one edge of the workflow's editable version (the newest that is not read-only) and answers
 * the Edge. The whole definition is validated again. Errors: WF-001, WF-005 no editable version,
 * WF-002 no such edge there, VAL-001 `data.id` differs from the path, WF-012/WF-015/WF-016.
 */
export async function updateEdge(
  db: Db,
  accountId: string,
  workflowId: string,
  edgeId: string,
  data: EdgeUpdate,
  by: Actor,
  externalsUrl: string,
): Promise<Edge> {
  if (data.id !== undefined && data.id !== edgeId)
    fail('VAL-001', '`data.id` must be the edge id of the path.');
  return withTx(db, async (tx) => {
    const wf = await requireWorkflow(tx, accountId, workflowId, { lock: true });
    const editable = (await versionsOf(tx, accountId, [wf.id])).filter((v) => !v.readonly).at(-1);
    if (!editable) fail('WF-005');
    const def = editable.definition;
    const edge = def.edges.find((e) => e.id === edgeId) ?? fail('WF-002');
    const changed = {
      id: edge.id,
      source: data.source ?? edge.source,
      target: data.target ?? edge.target,
      value: data.value ?? edge.value,
    };
    const definition = normalizeDefinition(
      {
        nodes: def.nodes.map((n) => ({ id: n.id, type: n.typeId, config: n.config })),
        edges: def.edges.map((e) => (e.id === edgeId ? changed : e)),
        properties: def.properties,
      },
      externalsUrl,
      def,
    );
    await updateVersion(tx, accountId, editable.id, { definition }, by);
    await checkCrossWorkflowLoops(tx, accountId, wf.id);
    await touchWorkflow(tx, accountId, wf.id, undefined, by);
    return presentEdge(definition, changed);
  });
}
