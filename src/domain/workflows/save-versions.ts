import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../../db/client.ts';
import { getGroup } from '../../db/queries/groups.ts';
import { findList } from '../../db/queries/lists.ts';
import {
  insertVersion,
  type StoredDefinition,
  setActiveVersion,
  updateVersion,
  versionsOf,
} from '../../db/queries/workflows.ts';
import { fail } from '../../errors.ts';
import { isId, newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { checkCrossWorkflowLoops } from './cross-loops.ts';
import { type DefinitionInput, type KnownTypes, normalizeDefinition } from './definition.ts';

/** A version in a request: with `id` it updates that version, without it adds one. */
export interface VersionInput {
  id?: string;
  name?: string;
  definition?: DefinitionInput;
  /** true: make this THE active version; false: deactivate it. */
  activate?: boolean;
  /** The Version shape's `active`: a timestamp (or true) activates, null (or false) deactivates. */
  active?: string | boolean | null;
}

/** WF-017: every list and sender group a definition names must be the account's. */
async function checkReferences(db: Queryable, accountId: string, def: StoredDefinition): Promise<void> {
  for (const n of def.nodes) {
    const listId = n.config.listId;
    if (n.typeId.includes('list') && typeof listId === 'string') {
      if (!(isId(listId) && (await findList(db, accountId, listId)))) {
        fail('WF-017', `Node "${n.id}": list "${listId}" not found.`);
      }
    }
    const groupId = n.config.id;
    if (n.typeId === 'action.send-message' && typeof groupId === 'string') {
      if (!(isId(groupId) && (await getGroup(db, accountId, groupId)))) {
        fail('WF-017', `Node "${n.id}": sender group "${groupId}" not found.`);
      }
    }
  }
}

function wantsActive(v: VersionInput): boolean | undefined {
  if (v.activate !== undefined) return v.activate;
  if (v.active === undefined) return undefined;
  return v.active !== null && v.active !== false;
}

/**
 * Applies the versions of a create or update request inside the caller's transaction: validates
 * every definition (WF-010…WF-017), adds new versions, edits existing ones (WF-003 not this
 * workflow's; WF-004 a read-only version's definition cannot change), and makes at most one
 * version active (WF-008 when several ask to be). A node sent with an empty `type` (`{}`, as the
 * interface's requests have it) keeps its type from the version it edits, or for a new version
 * from the workflow's current one (active, else newest); a new node needs `type.id` (WF-011).
 */
export async function saveVersions(
  tx: Queryable,
  accountId: string,
  workflowId: string,
  inputs: VersionInput[],
  by: Actor,
  externalsUrl: string,
): Promise<void> {
  if (inputs.filter((v) => wantsActive(v) === true).length > 1) {
    fail('WF-008', 'At most one version can be active.');
  }
  const rows = await versionsOf(tx, accountId, [workflowId]);
  const existing = new Map(rows.map((v) => [v.id, v]));
  // Nodes of a new version sent with an empty `type` keep the type they have in the current
  // version: the active one, else the newest.
  const current = rows.find((v) => v.active_at) ?? rows.at(-1);
  const currentTypes: KnownTypes | undefined = current && {
    def: current.definition,
    where: `the workflow's current version ("${current.id}")`,
  };
  let activate: string | null | undefined;
  for (const v of inputs) {
    let id = v.id;
    if (id === undefined) {
      if (!v.definition) fail('VAL-001', 'A new version needs a `definition`.');
      const definition = normalizeDefinition(v.definition, externalsUrl, undefined, currentTypes);
      await checkReferences(tx, accountId, definition);
      id = newId();
      await insertVersion(tx, accountId, { id, workflowId, name: v.name ?? '', definition, by });
    } else {
      const row = existing.get(id) ?? fail('WF-003', `Version "${id}" is not a version of this workflow.`);
      let definition: StoredDefinition | undefined;
      if (v.definition) {
        definition = normalizeDefinition(v.definition, externalsUrl, row.definition, {
          def: row.definition,
          where: `version "${id}"`,
        });
        if (isDeepStrictEqual(definition, row.definition)) definition = undefined;
        else if (row.readonly) {
          fail('WF-004', `Version "${id}" has run and is read-only: add a new version instead.`);
        }
      }
      if (definition) await checkReferences(tx, accountId, definition);
      await updateVersion(tx, accountId, id, { name: v.name, definition }, by);
    }
    const want = wantsActive(v);
    if (want === true) activate = id;
    else if (want === false && activate === undefined && existing.get(id)?.active_at) activate = null;
  }
  if (activate !== undefined) await setActiveVersion(tx, accountId, workflowId, activate);
  await checkCrossWorkflowLoops(tx, accountId, workflowId);
}
