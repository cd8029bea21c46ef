import { type Db, withSavepoint, withTx } from '../../db/client.ts';
import type { VersionRow } from '../../db/queries/workflows.ts';
import {
  activeVersions,
  bumpQueued,
  claimTriggerQueue,
  deleteQueued,
  endDripRunsOnReply,
  stopRuns,
  type TriggerQueueRow,
  wakeReplyWaiters,
} from '../../db/queries/workflows-runs.ts';
import { classifyKeyword } from '../../messaging/keywords.ts';
import { normaliseKeyword } from '../drips/drip-input.ts';
import { enroll, hasKeyword, triggerNode } from './enroll.ts';

type EngineVersion = VersionRow & { drip: boolean };

/** A cause that keeps failing is dropped after this many attempts (and logged). */
const MAX_ATTEMPTS = 5;

/** The active versions a queued cause enrolls its contact in. */
function matching(versions: EngineVersion[], q: TriggerQueueRow): EngineVersion[] {
  return versions.filter((v) => {
    const node = triggerNode(v);
    if (!node) return false;
    if (q.kind === 'contact-created') return node.typeId === 'trigger.contact-created';
    if (q.kind === 'list-joined')
      return node.typeId === 'trigger.list-joined' && node.config.listId === q.list_id;
    if (q.kind === 'message-received') {
      if (node.typeId !== 'trigger.keyword' || typeof node.config.keyword !== 'string') return false;
      // A drip's keyword is the whole text (marks around it aside); a workflow's, a word in it.
      return v.drip
        ? normaliseKeyword(q.text ?? '') === node.config.keyword
        : hasKeyword(q.text ?? '', node.config.keyword);
    }
    return false;
  });
}

/**
 * Acts on one cause: stop runs on opt-out (a drip's end as `opted-out`); on an inbound text, end
 * the contact's drip runs as `engaged` (not for an opt-out keyword: the opt-out that follows ends
 * them; not the drips this text is the keyword of) and wake reply waiters; then enroll.
 */
async function handle(tx: Parameters<typeof enroll>[0], q: TriggerQueueRow, versions: EngineVersion[]) {
  if (q.kind === 'contact-opt-out') {
    await stopRuns(
      tx,
      q.account_id,
      { contactId: q.contact_id },
      { code: 'CONT-010', description: 'Contact has requested no further communication.' },
      'opted-out',
    );
    return;
  }
  const starts = matching(versions, q);
  if (q.kind === 'message-received') {
    if (classifyKeyword(q.text ?? '') !== 'opt-out') {
      const keywordDrips = starts.filter((v) => v.drip).map((v) => v.workflow_id);
      await endDripRunsOnReply(tx, q.account_id, q.contact_id, q.created_at, keywordDrips);
    }
    await wakeReplyWaiters(tx, q.account_id, q.contact_id);
  }
  for (const v of starts) await enroll(tx, q.account_id, v, q.contact_id, q.kind);
}

/**
 * Claims up to `limit` queued causes (FOR UPDATE SKIP LOCKED, in one transaction) and handles each
 * under a savepoint, deleting it when done; a failing one is retried on a later round and dropped
 * after MAX_ATTEMPTS. Answers how many were claimed.
 */
export async function handleTriggers(db: Db, limit: number, log: (msg: string) => void = () => {}) {
  return withTx(db, async (tx) => {
    const queue = await claimTriggerQueue(tx, limit);
    const versions = new Map<string, EngineVersion[]>();
    for (const q of queue) {
      if (!versions.has(q.account_id)) versions.set(q.account_id, await activeVersions(tx, q.account_id));
      try {
        await withSavepoint(tx, async () => {
          await handle(tx, q, versions.get(q.account_id) ?? []);
          await deleteQueued(tx, q.account_id, q.id);
        });
      } catch (err) {
        log(`workflow trigger ${q.id} (${q.kind}): ${(err as Error).message}`);
        if (q.attempts + 1 >= MAX_ATTEMPTS) await deleteQueued(tx, q.account_id, q.id);
        else await bumpQueued(tx, q.account_id, q.id);
      }
    }
    return queue.length;
  });
}
