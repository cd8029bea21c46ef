import type { Queryable } from '../../db/client.ts';
import { findContact } from '../../db/queries/contacts.ts';
import type { VersionRow } from '../../db/queries/workflows.ts';
import { hasEverEntered, insertRun, type RunRow } from '../../db/queries/workflows-runs.ts';
import { newId } from '../../util/ids.ts';
import { nodeTypeOf } from './node-types.ts';

/** Why a contact did not enter. */
export type NotEnrolled = 'no-contact' | 'opted-out' | 'blocked' | 'live' | 'no-reenrollment';

/** The trigger node of a (valid) version's definition. */
export function triggerNode(v: VersionRow) {
  return v.definition.nodes.find((n) => nodeTypeOf(n.typeId)?.type === 'trigger');
}

/**
 * Enrolls a contact in an active version inside the caller's transaction: a run at the trigger
 * node, due now (the workflow-runner takes it from there). Opted-out or blocked contacts do not
 * enter; a contact with a live run of the workflow does not enter twice; a contact that ever
 * entered does not enter again when the trigger's type does not support re-enrollment.
 */
export async function enroll(
  tx: Queryable,
  accountId: string,
  version: VersionRow,
  contactId: string,
  trigger: string,
): Promise<RunRow | NotEnrolled> {
  const node = triggerNode(version);
  if (!node) return 'no-contact';
  const contact = await findContact(tx, accountId, contactId);
  if (!contact) return 'no-contact';
  if (contact.opted_out_at) return 'opted-out';
  if (contact.blocked_at) return 'blocked';
  const type = nodeTypeOf(node.typeId);
  if (!type?.supportsReenrollment && (await hasEverEntered(tx, accountId, version.workflow_id, contactId))) {
    return 'no-reenrollment';
  }
  const run = await insertRun(tx, accountId, {
    id: newId(),
    workflowId: version.workflow_id,
    versionId: version.id,
    contactId,
    nodeId: node.id,
    trigger,
  });
  return run ?? 'live';
}

/** Whether `text` contains `keyword` as a whole word, in any case. */
export function hasKeyword(text: string, keyword: string): boolean {
  const want = keyword.toLocaleLowerCase();
  return text.split(/[^\p{L}\p{N}_-]+/u).some((w) => w.toLocaleLowerCase() === want);
}
