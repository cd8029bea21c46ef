import type { Queryable } from '../../db/client.ts';
import { findContact } from '../../db/queries/contacts.ts';
import type { VersionRow } from '../../db/queries/workflows.ts';
import {
  currentRun,
  hasEverEntered,
  hasLiveRun,
  insertRun,
  insertStoppedRun,
  type RunRow,
  recentEntries,
  updateRun,
} from '../../db/queries/workflows-runs.ts';
import { recordedError } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import { SYSTEM } from '../actor.ts';
import { nextEdge } from './definition.ts';
import { nodeTypeOf } from './node-types.ts';
import { executeStep } from './run-step.ts';

const ENROLL = { ...SYSTEM, subSource: 'workflow-enroll' };

/**
 * Re-entry bound (issue 25): a contact that entered the account's workflows (all of them
 * together, drips included) ENTRY_LIMIT times in the last ENTRY_WINDOW_MINUTES, or
 * ENTRY_DAY_LIMIT times in the last ENTRY_DAY_MINUTES, does not enter another by a trigger: the
 * entry is recorded as a run stopped at once with WF-021. Loops that cannot be seen at save time
 * (two numbers of the account answering each other's keywords, lists joined through imports) stop
 * by themselves; the day's bound stops those that wait a minute or more at each turn, which pass
 * under the ten minutes' (a contact entering once a minute never enters 10 times in 10 minutes).
 * A manual enrollment (a person's request) is counted but never refused.
 */
export const ENTRY_LIMIT = 10;
export const ENTRY_WINDOW_MINUTES = 10;
export const ENTRY_DAY_LIMIT = 50;
export const ENTRY_DAY_MINUTES = 24 * 60;

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
  const entry = {
    id: newId(),
    workflowId: version.workflow_id,
    versionId: version.id,
    contactId,
    nodeId: node.id,
    trigger,
  };
  if (trigger !== 'manual') {
    const n = await recentEntries(tx, accountId, contactId, ENTRY_WINDOW_MINUTES, ENTRY_DAY_MINUTES);
    const over =
      n.recent >= ENTRY_LIMIT
        ? `${ENTRY_LIMIT} times in ${ENTRY_WINDOW_MINUTES} minutes`
        : n.long >= ENTRY_DAY_LIMIT
          ? `${ENTRY_DAY_LIMIT} times in ${ENTRY_DAY_MINUTES / 60} hours`
          : undefined;
    if (over) {
      if (await hasLiveRun(tx, accountId, version.workflow_id, contactId)) return 'live';
      const why = `The contact entered workflows ${over}: this entry was stopped (a loop between workflows, lists or numbers?).`;
      return insertStoppedRun(tx, accountId, entry, recordedError('WF-021', why));
    }
  }
  const run = await insertRun(tx, accountId, entry);
  return run ? startAtFirstWait(tx, run, version) : 'live';
}

/**
 * A trigger followed by a wait: the run passes the trigger and starts waiting in the enrollment's
 * own transaction, so its timer runs from the moment it entered (due = entered + delay, exactly).
 */
async function startAtFirstWait(tx: Queryable, run: RunRow, version: VersionRow): Promise<RunRow> {
  const def = version.definition;
  const edge = nextEdge(def, run.node_id);
  if (def.nodes.find((n) => n.id === edge?.target)?.typeId !== 'action.wait') return run;
  let current = run;
  for (let i = 0; i < 2; i++) {
    const next = await executeStep(tx, current, def, ENROLL);
    await updateRun(tx, run.account_id, run.id, { ...next, release: true });
    current = (await currentRun(tx, run.account_id, run.id)) ?? current;
  }
  return current;
}

/** Whether `text` contains `keyword` as a whole word, in any case. */
export function hasKeyword(text: string, keyword: string): boolean {
  const want = keyword.toLocaleLowerCase();
  return text.split(/[^\p{L}\p{N}_-]+/u).some((w) => w.toLocaleLowerCase() === want);
}
