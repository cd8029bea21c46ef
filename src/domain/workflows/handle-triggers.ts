import { type Db, withSavepoint, withTx } from '../../db/client.ts';
import { lockDue, retryLocked } from '../../db/queries/claim.ts';
import type { VersionRow } from '../../db/queries/workflows.ts';
import {
  activeVersions,
  deleteQueued,
  endDripRunsOnReply,
  stopRuns,
  TRIGGER_QUEUE,
  type TriggerQueueRow,
  wakeReplyWaiters,
} from '../../db/queries/workflows-runs.ts';
import { recordedError } from '../../errors.ts';
import { classifyKeyword } from '../../messaging/keywords.ts';
import { type Backoff, backoffMs, eachItem, type Log } from '../claim.ts';
import { normaliseKeyword } from '../drips/drip-input.ts';
import { enroll, hasKeyword, triggerNode } from './enroll.ts';

type EngineVersion = VersionRow & { drip: boolean };

/** A failing cause is tried again after 1 s, 2 s, 4 s, 8 s, and dropped (and logged) after 5 attempts. */
const BACKOFF: Backoff = { baseMs: 1000, maxMs: 60_000, maxAttempts: 5 };

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
    await stopRuns(tx, q.account_id, { contactId: q.contact_id }, recordedError('CONT-010'), 'opted-out');
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
 * Claims up to `limit` due causes (the claim helper: FOR UPDATE SKIP LOCKED, in one transaction)
 * and handles each under a savepoint, deleting it when done; a failing one is logged, tried again
 * after the backoff and dropped after BACKOFF.maxAttempts. Answers how many were claimed.
 */
export async function handleTriggers(db: Db, limit: number, log: Log) {
  return withTx(db, async (tx) => {
    const queue = await lockDue<TriggerQueueRow>(tx, TRIGGER_QUEUE, limit);
    const versions = new Map<string, EngineVersion[]>();
    await eachItem(
      log,
      'workflow-enroll',
      queue,
      (q) => `cause ${q.id} (${q.kind})`,
      async (q) => {
        await withSavepoint(tx, async () => {
          if (!versions.has(q.account_id)) versions.set(q.account_id, await activeVersions(tx, q.account_id));
          await handle(tx, q, versions.get(q.account_id) ?? []);
          await deleteQueued(tx, q.account_id, q.id);
        });
      },
      async (q) => {
        const attempts = q.attempts + 1;
        if (attempts >= (BACKOFF.maxAttempts ?? 1)) {
          log(`workflow-enroll cause ${q.id} (${q.kind}): given up after ${attempts} attempts`);
          await deleteQueued(tx, q.account_id, q.id);
        } else await retryLocked(tx, TRIGGER_QUEUE, [q.account_id, q.id], backoffMs(BACKOFF, attempts));
      },
    );
    return queue.length;
  });
}
