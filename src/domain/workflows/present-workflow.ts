import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import {
  type StoredDefinition,
  type VersionRow,
  versionsOf,
  type WorkflowRow,
} from '../../db/queries/workflows.ts';
import type { Workflow as WorkflowSchema } from '../../schemas/workflows.ts';
import { omitNulls } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';
import { type NodeType, nodeTypeOf } from './node-types.ts';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** The Edge shape: `type` is `timeout` for a condition's timeout edge, else `standard`. */
export function presentEdge(def: StoredDefinition, e: StoredDefinition['edges'][number]) {
  const source = def.nodes.find((n) => n.id === e.source);
  const rule = source
    ? nodeTypeOf(source.typeId)?.validation.edges.find((r) => !r.value.editable && r.value.value === e.value)
    : undefined;
  return { id: e.id, type: rule?.type ?? 'standard', source: e.source, target: e.target, value: e.value };
}

/** An Edge as the API shows it. */
export type Edge = ReturnType<typeof presentEdge>;

/** A definition in the API shape: each node's `type` is its full Node type. */
export function presentDefinition(def: StoredDefinition) {
  return {
    nodes: def.nodes.map((n) => ({
      id: n.id,
      type: nodeTypeOf(n.typeId) as NodeType,
      config: n.config,
    })),
    edges: def.edges.map((e) => presentEdge(def, e)),
    properties: def.properties,
  };
}

/** The Version shape (`active`, `lastActive` left out while unset, never null). */
export function presentVersion(v: VersionRow) {
  return omitNulls({
    id: v.id,
    name: v.name,
    definition: presentDefinition(v.definition),
    created: stamp(v.created_at, v.created_by),
    updated: stamp(v.updated_at, v.updated_by),
    readonly: v.readonly,
    active: iso(v.active_at),
    lastActive: iso(v.last_active_at),
  });
}

/** A workflow version as the API shows it. */
export type Version = ReturnType<typeof presentVersion>;

/** The Workflow shape: id, name, audit stamps and every version, oldest first. */
export function presentWorkflow(w: WorkflowRow, versions: VersionRow[]): Static<typeof WorkflowSchema> {
  return {
    id: w.id,
    name: w.name,
    created: stamp(w.created_at, w.created_by),
    updated: stamp(w.updated_at, w.updated_by),
    versions: versions.map(presentVersion),
  };
}

/** A workflow as the API shows it. */
export type Workflow = ReturnType<typeof presentWorkflow>;

/** Workflows in the API shape, with their versions (one query for all). */
export async function presentWorkflows(
  db: Queryable,
  accountId: string,
  rows: WorkflowRow[],
): Promise<Workflow[]> {
  const versions = await versionsOf(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) =>
    presentWorkflow(
      r,
      versions.filter((v) => v.workflow_id === r.id),
    ),
  );
}
